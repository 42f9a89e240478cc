#include "support/base_onto.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "formats/registry.hpp"
#include "support/gltf_edit.hpp"
#include "support/gltf_validator.hpp"

namespace rigport::test {

OntoFixture ontoFixture(const std::string& format, const std::string& dir, const std::string& original) {
  OntoFixture f{format, dir, original, dir + "/" + std::filesystem::path(original).stem().string() + ".glb", readBytes(original)};
  const CliRun run = runCli("convert " + quote(f.original) + " -o " + quote(f.glb) + " --overwrite");
  EXPECT_EQ(run.code, 0) << run.text;
  const ValidatorRun v = validateGltfFile(f.glb);
  EXPECT_TRUE(v.ok) << v.output;
  return f;
}

OntoFixture ontoFixture(const std::string& format, const std::string& dir, const std::string& fileName, const std::vector<uint8_t>& bytes) {
  return ontoFixture(format, dir, writeFile(dir + "/" + fileName, bytes));
}

std::string writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

Rig rigOf(const std::string& path) {
  auto asset = loadAsset(path);
  EXPECT_TRUE(asset.ok()) << (asset ? "" : asset.error().describe());
  return asset ? asset->rigs.at(0) : Rig{};
}

uint32_t boneNamed(const Rig& rig, const std::string& name) {
  const int32_t b = rig.skeleton.find(name);
  EXPECT_GE(b, 0) << "no bone " << name;
  return static_cast<uint32_t>(std::max(b, 0));
}

CliRun writeOnto(const OntoFixture& f, const Rig& rig, const std::string& out) {
  const std::string glb = writeGlb(rig, f.dir + "/edited.glb");
  const ValidatorRun v = validateGltfFile(glb);
  EXPECT_TRUE(v.ok) << v.output;
  return runCli("convert " + quote(glb) + " --to " + f.format + " --base " + quote(f.original) + " -o " + quote(out) + " --overwrite");
}

void expectUneditedRoundTrip(const OntoFixture& f, const std::string& out) {
  const CliRun run = runCli("convert " + quote(f.glb) + " --to " + f.format + " --base " + quote(f.original) + " -o " + quote(out));
  ASSERT_EQ(run.code, 0) << run.text;
  EXPECT_EQ(readBytes(out), f.bytes);
}

void expectRefused(const CliRun& run, const std::string& out, const std::vector<std::string>& words) {
  EXPECT_EQ(run.code, 1) << run.text;
  for (const std::string& w : words) EXPECT_NE(run.text.find(w), std::string::npos) << w << " not in: " << run.text;
  EXPECT_FALSE(std::ifstream(out).good());
}

float turnDegrees(const glm::quat& a, const glm::quat& b) {
  const glm::quat d = glm::inverse(a) * b;
  return glm::degrees(2.0f * std::asin(std::min(1.0f, glm::length(glm::vec3(d.x, d.y, d.z)))));
}

std::set<size_t> changedBytes(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  std::set<size_t> out;
  EXPECT_EQ(a.size(), b.size());
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] != b[i]) out.insert(i);
  }
  return out;
}

bool within(const std::set<size_t>& changed, const std::set<size_t>& allowed) {
  return std::includes(allowed.begin(), allowed.end(), changed.begin(), changed.end());
}

void addRange(std::set<size_t>& s, size_t at, size_t n) {
  for (size_t i = 0; i < n; ++i) s.insert(at + i);
}

}  // namespace rigport::test
