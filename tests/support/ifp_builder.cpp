#include "support/ifp_builder.hpp"

#include <algorithm>
#include <cstring>

namespace rigport::test {
namespace {

constexpr size_t kNameSize = 24;
constexpr size_t kType3KeySize = 10;  // i16 q[4], i16 time

void put(std::vector<uint8_t>& out, const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  out.insert(out.end(), p, p + size);
}
void putI32(std::vector<uint8_t>& out, int32_t v) { put(out, &v, 4); }
void putI16(std::vector<uint8_t>& out, int16_t v) { put(out, &v, 2); }
void putName(std::vector<uint8_t>& out, const std::string& name) {
  char field[kNameSize] = {};
  std::memcpy(field, name.data(), std::min(name.size(), kNameSize - 1));
  put(out, field, kNameSize);
}

}  // namespace

std::vector<uint8_t> buildAnp3(const std::string& package, const std::vector<IfpClip>& clips) {
  std::vector<uint8_t> body;
  putName(body, package);
  putI32(body, static_cast<int32_t>(clips.size()));
  for (const IfpClip& clip : clips) {
    putName(body, clip.name);
    putI32(body, static_cast<int32_t>(clip.sequences.size()));
    size_t keyBytes = 0;
    for (const IfpSequence& s : clip.sequences) keyBytes += s.ticks.size() * kType3KeySize;
    putI32(body, static_cast<int32_t>(keyBytes));
    putI32(body, 1);  // compressed
    for (const IfpSequence& s : clip.sequences) {
      putName(body, s.bone);
      putI32(body, 3);
      putI32(body, static_cast<int32_t>(s.ticks.size()));
      putI32(body, s.boneId);
      for (int16_t t : s.ticks) {
        for (int16_t q : {0, 0, 0, 4096}) putI16(body, q);
        putI16(body, t);
      }
    }
  }
  std::vector<uint8_t> out{'A', 'N', 'P', '3'};
  putI32(out, static_cast<int32_t>(body.size()));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

}  // namespace rigport::test
