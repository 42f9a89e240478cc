// ACT section → bones (sluggers.md §4).
#include <cmath>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>

#include "formats/sluggers/act.hpp"
#include "formats/sluggers/section.hpp"

namespace rigport::sluggers {
namespace {

constexpr const char* kAct = "ACT";

// A DSBranch pointer (ACT-relative) → bone-table index, -1 for none.
Result<int32_t> boneLink(ByteReader& r, size_t count, Field f) {
  RP_ASSIGN(const uint32_t ptr, r.u32(f));
  if (ptr == 0) return -1;
  const uint64_t rel = uint64_t(ptr) - kActHeaderSize;
  if (ptr < kActHeaderSize || rel % kBoneRecordSize != 0 || rel / kBoneRecordSize >= count) {
    return r.errorAt(r.position() - 4, ErrorCode::BadValue,
                     fmt::format("0x{:X} is not one of the {} bone records (0x20 + 0x1C·i)", ptr, count), f);
  }
  return static_cast<int32_t>(rel / kBoneRecordSize);
}

Result<float> finiteF32(ByteReader& r, Field f) {
  RP_ASSIGN(const float v, r.f32(f));
  if (!std::isfinite(v)) return r.errorAt(r.position() - 4, ErrorCode::BadValue, "not a finite number", f);
  return v;
}

// §4 Control / SRT: local = T·R·S with only the components whose bits are set (CTRLBuildMatrix).
Result<glm::mat4> readControl(ByteReader& r, size_t at, Control& c, Provenance& provenance) {
  auto scope = r.scope("control");
  RP_CHECK(r.seek(at, "type"));
  RP_ASSIGN(c.type, r.u8("type"));
  RP_CHECK(r.skip(3, "pad"));
  float f[12];
  for (float& v : f) { RP_ASSIGN(v, finiteF32(r, "value")); }
  if (c.type & kCtrlMatrix) {
    glm::mat4 m(1.0f);  // GX Mtx: row-major 3×4, translation in column 3
    for (int row = 0; row < 3; ++row)
      for (int col = 0; col < 4; ++col) m[col][row] = f[row * 4 + col];
    return m;
  }
  if (c.type & kCtrlScale) c.scale = {f[0], f[1], f[2]};
  if (c.type & kCtrlQuat) {
    const glm::quat q(f[6], f[3], f[4], f[5]);  // stored x, y, z, w
    if (glm::length(q) < 1e-6f) {
      provenance.warn("sluggers-zero-quaternion", fmt::format("control at 0x{:X}: zero quaternion, identity used", r.fileOffsetOfStart() + at));
    } else {
      c.rotation = glm::normalize(q);
    }
  }
  if (c.type & kCtrlTranslation) c.translation = {f[7], f[8], f[9]};
  if ((c.type & kCtrlEuler) && !(c.type & kCtrlQuat)) {
    provenance.warn("sluggers-euler-control", fmt::format("control at 0x{:X}: Euler rotation (type 0x{:02X}) is not documented in the "
                                                          "note (axis order, units); rotation ignored",
                                                          r.fileOffsetOfStart() + at, c.type));
  }
  if (c.type & kCtrlScaleOrientation) {
    provenance.warn("sluggers-scale-orientation", fmt::format("control at 0x{:X}: the scale-orientation quaternion (0x20) has no documented "
                                                              "place in the record; ignored",
                                                              r.fileOffsetOfStart() + at));
  }
  return glm::translate(glm::mat4(1.0f), c.translation) * glm::mat4_cast(c.rotation) * glm::scale(glm::mat4(1.0f), c.scale);
}

// boneArray order ([CP] InitBone): pre-order, children along firstChild then next.
std::vector<uint32_t> depthFirstOrder(const std::vector<ActBone>& bones, int32_t root) {
  std::vector<uint32_t> order;
  std::vector<bool> seen(bones.size(), false);
  std::vector<int32_t> pending{root};
  while (!pending.empty()) {
    int32_t b = pending.back();
    pending.pop_back();
    while (b >= 0) {
      if (seen[static_cast<size_t>(b)]) return {};  // a cycle or a shared child: not a tree
      seen[static_cast<size_t>(b)] = true;
      order.push_back(static_cast<uint32_t>(b));
      const ActBone& bone = bones[static_cast<size_t>(b)];
      if (bone.next >= 0) pending.push_back(bone.next);
      b = bone.firstChild;
    }
  }
  if (order.size() != bones.size()) return {};
  return order;
}

Status readUserData(ByteReader& r, size_t at, uint32_t size, ActData& act, Provenance& provenance) {
  auto scope = r.scope("userData");
  size_t pos = 0;
  while (size - pos >= kUserDataHeaderSize) {
    RP_CHECK(r.seek(at + pos, "size"));
    RP_ASSIGN(const uint32_t entrySize, r.u32("size"));
    RP_ASSIGN(const uint16_t kind, r.u16("kind"));
    RP_ASSIGN(const uint16_t count, r.u16("count"));
    if (entrySize < kUserDataHeaderSize || entrySize > size - pos) {
      provenance.warn("sluggers-user-data", fmt::format("ACT user data at 0x{:X}: descriptor size {} leaves the {} bytes of user data; "
                                                        "the rest is skipped",
                                                        r.fileOffsetOfStart() + at + pos, entrySize, size));
      return Ok{};
    }
    RP_ASSIGN(ByteReader data, r.window(at + pos + kUserDataHeaderSize, entrySize - kUserDataHeaderSize, Field("entry", pos)));
    if (kind == kUserDataTrackIds && count == act.bones.size()) {
      RP_ASSIGN(act.trackIds, data.array<uint16_t>(count, "trackIds"));
    } else if (kind == kUserDataRigportNames && count == act.bones.size()) {
      RP_CHECK(data.count(count, 1, "names"));
      for (size_t i = 0; i < count; ++i) { RP_ASSIGN(act.names.emplace_back(), data.cString(Field("name", static_cast<int64_t>(i)))); }
    }
    pos += entrySize;
  }
  return Ok{};
}

}  // namespace

void decomposeTrs(const glm::mat4& m, glm::vec3& translation, glm::quat& rotation, glm::vec3& scale) {
  translation = glm::vec3(m[3]);
  glm::mat3 r(m);
  scale = {glm::length(r[0]), glm::length(r[1]), glm::length(r[2])};
  if (glm::determinant(r) < 0.0f) scale.x = -scale.x;
  for (int c = 0; c < 3; ++c) r[c] = scale[c] != 0.0f ? r[c] / scale[c] : glm::vec3(c == 0, c == 1, c == 2);
  rotation = glm::normalize(glm::quat_cast(r));
}

Result<ActData> readAct(ByteReader& r, Provenance& provenance) {
  ActData act;
  RP_CHECK(r.seek(0, "magic"));
  RP_ASSIGN(const uint32_t magic, r.u32("magic"));
  if (magic != kActMagic) {
    return r.errorAt(0, ErrorCode::BadValue, fmt::format("magic 0x{:08X}, not the ACT version 0x{:08X}", magic, kActMagic), "magic");
  }
  RP_ASSIGN(act.actorID, r.u16("actorID"));
  RP_ASSIGN(const uint16_t boneCount, r.u16("boneCount"));
  RP_CHECK(r.skip(4, "treeOffset"));
  RP_ASSIGN(const int32_t root, boneLink(r, boneCount, "treeRoot"));
  RP_ASSIGN(const uint32_t geoNamePtr, r.u32("geoName"));
  size_t geoNameAt = 0;
  if (geoNamePtr != 0) { RP_ASSIGN(geoNameAt, follow(r, geoNamePtr, 0, 1, "geoName", kAct)); }
  RP_ASSIGN(act.skinFileID, r.u16("skinFileID"));
  RP_CHECK(r.skip(2, "pad"));
  RP_ASSIGN(const uint32_t userDataSize, r.u32("userDataSize"));
  RP_ASSIGN(const uint32_t userDataPtr, r.u32("userData"));
  size_t userDataAt = 0;
  if (userDataSize != 0) { RP_ASSIGN(userDataAt, follow(r, userDataPtr, 0, userDataSize, "userData", kAct)); }
  RP_CHECK(r.count(boneCount, kBoneRecordSize, "boneCount"));
  RP_CHECK(r.charge(uint64_t(boneCount) * (sizeof(ActBone) + sizeof(Bone)), "boneCount"));
  act.bones.resize(boneCount);
  for (size_t i = 0; i < boneCount; ++i) {
    auto scope = r.scope(Field("bone", static_cast<int64_t>(i)));
    ActBone& b = act.bones[i];
    RP_CHECK(r.seek(kActHeaderSize + i * kBoneRecordSize, "orientation"));
    RP_ASSIGN(const uint32_t controlPtr, r.u32("orientation"));
    size_t controlAt = 0;
    if (controlPtr != 0) { RP_ASSIGN(controlAt, follow(r, controlPtr, 0, kControlSize, "orientation", kAct)); }
    RP_CHECK(r.skip(4, "prev"));
    RP_ASSIGN(b.next, boneLink(r, boneCount, "next"));
    RP_ASSIGN(b.parent, boneLink(r, boneCount, "parent"));
    RP_ASSIGN(b.firstChild, boneLink(r, boneCount, "firstChild"));
    RP_ASSIGN(b.geoFileID, r.u16("geoFileID"));
    RP_ASSIGN(b.boneID, r.u16("boneID"));
    RP_ASSIGN(b.inheritanceFlag, r.u8("inheritanceFlag"));
    if (controlPtr != 0) { RP_ASSIGN(b.local, readControl(r, controlAt, b.control, provenance)); }  // 0 means identity (§4)
    b.controlAt = controlAt;
  }
  if (geoNamePtr != 0) {
    // §4: the GEO name may lack a NUL after its extension; it ends at the section end at the latest.
    RP_CHECK(r.seek(geoNameAt, "geoName"));
    const size_t n = std::min<size_t>(r.remaining(), 64);
    RP_ASSIGN(act.geoName, r.fixedString(n, "geoName"));
  }
  if (userDataSize != 0) RP_CHECK(readUserData(r, userDataAt, userDataSize, act, provenance));
  if (boneCount > 0) {
    act.depthFirst = root >= 0 ? depthFirstOrder(act.bones, root) : std::vector<uint32_t>{};
    if (act.depthFirst.empty()) {
      provenance.warn("sluggers-bone-tree", fmt::format("ACT at 0x{:X}: the firstChild/next links from the tree root do not reach every "
                                                        "bone exactly once; no depth-first bone order",
                                                        r.fileOffsetOfStart()));
    }
  }
  return act;
}

}  // namespace rigport::sluggers
