#include "formats/sims3/clip_resource_key.hpp"

#include <array>
#include <utility>

#include "core/hash.hpp"

namespace rigport::sims3 {
namespace {

// §2.13 AGE table (wiki, s3pi and s3py agree).
constexpr std::array<std::pair<std::string_view, uint16_t>, 15> kAges{{{"b", 0x01},
                                                                         {"p", 0x02},
                                                                         {"c", 0x03},
                                                                         {"t", 0x04},
                                                                         {"h", 0x05},
                                                                         {"e", 0x06},
                                                                         {"ad", 0x08},
                                                                         {"cd", 0x09},
                                                                         {"al", 0x0A},
                                                                         {"ac", 0x0D},
                                                                         {"cc", 0x0E},
                                                                         {"ah", 0x10},
                                                                         {"ch", 0x11},
                                                                         {"ab", 0x12},
                                                                         {"ar", 0x13}}};
constexpr uint16_t kPetAge = 0x06;  // ages above it are pets' (s3py: group 0x48000000)
constexpr uint32_t kPetGroup = 0x48000000;
constexpr size_t kMaxPrefix = 5;  // "al2ad": the longest prefix of the AGE table's words

uint16_t ageOf(std::string_view actor) {
  for (const auto& [word, age] : kAges)
    if (word == actor) return age;
  return 0;
}

bool generic(std::string_view actor) { return actor == "a" || actor == "o"; }
std::string_view genericActor(std::string_view actor) { return actor == "o" ? "o" : "a"; }

}  // namespace

ClipKey64 clipKey(std::string_view name) {
  ClipKey64 k;
  k.genericName = std::string(name);
  const size_t underscore = name.find('_');
  if (underscore != std::string_view::npos && underscore > 0 && underscore <= kMaxPrefix) {
    const std::string_view prefix = name.substr(0, underscore), rest = name.substr(underscore + 1);
    const size_t two = prefix.find('2');
    uint16_t xAge = 0, yAge = 0;
    if (two != std::string_view::npos) {
      const std::string_view x = prefix.substr(0, two), y = prefix.substr(two + 1);
      if (!generic(x) || !generic(y)) {
        xAge = ageOf(x);
        yAge = ageOf(y);
        k.genericName = std::string(genericActor(x)) + "2" + std::string(genericActor(y)) + "_" + std::string(rest);
        k.ageMask = static_cast<uint16_t>(0x8000 | xAge << 8 | yAge);
      }
    } else if (!generic(prefix)) {
      xAge = ageOf(prefix);
      k.genericName = "a_" + std::string(rest);
      k.ageMask = static_cast<uint16_t>(0x8000 | xAge << 8);
    }
    if (xAge > kPetAge || yAge > kPetAge) k.group = kPetGroup;
  }
  k.instance = (fnv1_64Lower(k.genericName) & 0x7FFFFFFFFFFFFFFFull) ^ (static_cast<uint64_t>(k.ageMask) << 48);
  return k;
}

}  // namespace rigport::sims3
