#include "formats/renderware/frame_list.hpp"

#include <fmt/format.h>

#include "formats/renderware/hanim_plg.hpp"

namespace rigport::renderware {
namespace {

constexpr size_t kFrameRecordSize = 56;  // §1.2: right, up, at, pos (12 f32), i32 parent, u32 flags

// §1.3: raw bytes, length = chunk size, no NUL; readers stop at the first NUL/non-printable byte.
std::string nodeName(std::span<const uint8_t> bytes) {
  std::string s;
  for (uint8_t c : bytes) {
    if (c < 0x20 || c >= 0x7F) break;
    s.push_back(static_cast<char>(c));
  }
  return s;
}

// §1.3 fallback: User Data PLG 0x11F entry "name" (DragonFF read_frame_list). Layout (librw
// userdata.cpp): i32 numSets; per set i32 nameLen, char name[nameLen], i32 type (1 int, 2 float,
// 3 string), i32 numElements, elements (strings as i32 len + chars).
Result<std::optional<std::string>> userDataName(ByteReader& r) {
  RP_ASSIGN(const int32_t numSets, r.s32("numSets"));
  RP_ASSIGN(const size_t sets, r.count(numSets < 0 ? 0 : static_cast<uint64_t>(numSets), 12, "sets"));
  for (size_t s = 0; s < sets; ++s) {
    auto scope = r.scope(Field("sets", static_cast<int64_t>(s)));
    RP_ASSIGN(const uint32_t nameLen, r.u32("nameLen"));
    RP_ASSIGN(const std::string setName, r.fixedString(nameLen, "name"));
    RP_ASSIGN(const int32_t type, r.s32("type"));
    RP_ASSIGN(const uint32_t numElements, r.u32("numElements"));
    for (uint32_t e = 0; e < numElements; ++e) {
      if (type == 3) {
        RP_ASSIGN(const uint32_t len, r.u32(Field("length", e)));
        RP_ASSIGN(const std::string value, r.fixedString(len, Field("value", e)));
        if (setName == "name") return std::optional<std::string>(value);
      } else {
        RP_CHECK(r.skip(4, Field("value", e)));
      }
    }
  }
  return std::optional<std::string>();
}

}  // namespace

Result<std::vector<RwFrame>> readFrameList(ByteReader& r, const DffContext& ctx) {
  RP_ASSIGN(ByteReader st, readChunk(r, kStruct, "Struct"));
  RP_ASSIGN(const uint32_t numFrames, st.u32("numFrames"));
  RP_ASSIGN(const size_t n, st.count(numFrames, kFrameRecordSize, "frames"));
  std::vector<RwFrame> frames(n);
  for (size_t i = 0; i < n; ++i) {
    auto scope = st.scope(Field("frames", static_cast<int64_t>(i)));
    RwFrame& f = frames[i];
    for (int c = 0; c < 4; ++c) {
      for (int k = 0; k < 3; ++k) { RP_ASSIGN(f.matrix[c][k], st.f32(Field("matrix", c * 3 + k))); }
    }
    const size_t parentPos = st.position();
    RP_ASSIGN(f.parent, st.s32("parent"));
    RP_ASSIGN(f.flags, st.u32("flags"));
    if (f.parent < -1 || f.parent >= static_cast<int64_t>(n) || f.parent == static_cast<int64_t>(i)) {
      return st.errorAt(parentPos, ErrorCode::BadValue,
                        fmt::format("frame {} has parent {} of {} frames", i, f.parent, n), "parent");
    }
  }
  for (size_t i = 0; i < n; ++i) {
    RP_ASSIGN(ByteReader ext, readChunk(r, kExtension, Field("Extension", static_cast<int64_t>(i))));
    RwFrame& f = frames[i];
    std::optional<std::string> userName;
    RP_CHECK(forEachChunk(ext, "chunk", [&](const ChunkHeader& h, ByteReader& c) -> Status {
      if (h.type == kNodeName) {
        f.name = nodeName(c.data());
      } else if (h.type == kHAnimPlg) {
        auto scope = c.scope("HAnimPlg");
        RP_ASSIGN(f.hanim, readHAnimPlg(c, ctx));
      } else if (h.type == kUserDataPlg) {
        auto scope = c.scope("UserDataPlg");
        RP_ASSIGN(userName, userDataName(c));
      } else {
        noteSkippedChunk(ctx, h, c);
      }
      return Ok{};
    }));
    if (!f.name && userName) f.name = userName;
  }
  return frames;
}

void writeFrameList(ByteWriter& w, const std::vector<RwFrame>& frames, uint32_t libraryId) {
  const size_t list = beginChunk(w, kFrameList, libraryId);
  const size_t st = beginChunk(w, kStruct, libraryId);
  w.u32(static_cast<uint32_t>(frames.size()));
  for (const RwFrame& f : frames) {
    for (int c = 0; c < 4; ++c) {
      for (int k = 0; k < 3; ++k) w.f32(f.matrix[c][k]);
    }
    w.s32(f.parent);
    w.u32(f.flags);
  }
  endChunk(w, st);
  for (const RwFrame& f : frames) {
    const size_t ext = beginChunk(w, kExtension, libraryId);
    if (f.hanim) writeHAnimPlg(w, *f.hanim, libraryId);
    if (f.name && !f.name->empty()) {
      const size_t nn = beginChunk(w, kNodeName, libraryId);
      w.raw(std::span(reinterpret_cast<const uint8_t*>(f.name->data()), f.name->size()));
      endChunk(w, nn);
    }
    endChunk(w, ext);
  }
  endChunk(w, list);
}

}  // namespace rigport::renderware
