// The round trip every `convert --to F --base ORIGINAL` test makes (issue 28): an original on disk,
// rigport's validator-clean .glb of it, an edited rig written back onto it, and what changed.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <glm/gtc/quaternion.hpp>

#include "core/rig.hpp"
#include "support/test_support.hpp"

namespace rigport::test {

struct OntoFixture {
  std::string format;          // what --to names ("rw4-arena")
  std::string dir, original, glb;
  std::vector<uint8_t> bytes;  // the original's
};

// The original (a file in `dir` or a sample) converted by the CLI to <dir>/<its stem>.glb, which
// must pass the validator.
OntoFixture ontoFixture(const std::string& format, const std::string& dir, const std::string& original);
// `bytes` written to <dir>/<fileName> first.
OntoFixture ontoFixture(const std::string& format, const std::string& dir, const std::string& fileName, const std::vector<uint8_t>& bytes);

std::string writeFile(const std::string& path, const std::vector<uint8_t>& bytes);
// The first rig of the file as loadAsset reads it.
Rig rigOf(const std::string& path);
uint32_t boneNamed(const Rig& rig, const std::string& name);

// `rig` as an edited .glb (<dir>/edited.glb, validator-clean) written onto the original with --base.
CliRun writeOnto(const OntoFixture& f, const Rig& rig, const std::string& out);
// The fixture's own .glb written onto the original gives the original byte for byte.
void expectUneditedRoundTrip(const OntoFixture& f, const std::string& out);
// A usage error of the writer: the file fails (exit 1, as any file convert cannot write), its
// message holds each of `words`, nothing is written.
void expectRefused(const CliRun& run, const std::string& out, const std::vector<std::string>& words);

// The turn from a to b, in degrees.
float turnDegrees(const glm::quat& a, const glm::quat& b);
// The offsets where two files of one size differ; whether they all lie in `allowed`.
std::set<size_t> changedBytes(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);
bool within(const std::set<size_t>& changed, const std::set<size_t>& allowed);
void addRange(std::set<size_t>& s, size_t at, size_t n);

}  // namespace rigport::test
