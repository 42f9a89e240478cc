// Hand-built GTA SA IFP packages (ANP3, compressed sequence type 3: rotation keys only) for tests
// that need a clip a sample does not have (format note renderware.md §4.2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rigport::test {

struct IfpSequence {
  std::string bone;        // track name; bound by name when boneId is -1
  int32_t boneId = -1;
  std::vector<int16_t> ticks;  // key times in 1/60 s; every key is the identity rotation
};

struct IfpClip {
  std::string name;
  std::vector<IfpSequence> sequences;
};

std::vector<uint8_t> buildAnp3(const std::string& package, const std::vector<IfpClip>& clips);

}  // namespace rigport::test
