// RIG (0x8EAF13DE), new EA format (sims3_clip.md §3.2), read and written. Real rigs carry damage
// a reader keeps and reports (§6 "Real-data cases"): a mirror index past the bone count, a stored
// hash that is not the name's; bones whose parent comes later in the file are reordered.
#include <algorithm>

#include <fmt/format.h>

#include "core/byte_writer.hpp"
#include "core/hash.hpp"
#include "formats/sims3/rig_layout.hpp"
#include "formats/sims3/sims3.hpp"

namespace rigport::sims3 {
namespace {

using namespace rig;
using Json = nlohmann::json;

struct RawBone {
  Bone bone;
  int32_t opposite = 0;
  int32_t parent = -1;
  uint32_t hash = 0;
  uint32_t flags = 0;
};

Result<RawBone> readBone(ByteReader& r) {
  RawBone b;
  for (int i = 0; i < 3; ++i) { RP_ASSIGN(b.bone.translation[i], r.f32(Field("position", i))); }
  float q[4];
  for (int i = 0; i < 4; ++i) { RP_ASSIGN(q[i], r.f32(Field("orientation", i))); }
  b.bone.rotation = glm::quat(q[3], q[0], q[1], q[2]);  // stored x, y, z, w; kept as stored
  for (int i = 0; i < 3; ++i) { RP_ASSIGN(b.bone.scale[i], r.f32(Field("scale", i))); }
  RP_ASSIGN(const int32_t nameLength, r.s32("nameLength"));
  RP_ASSIGN(const size_t n, r.count(nameLength < 0 ? ~0ull : static_cast<uint64_t>(nameLength), 1, "nameLength"));
  RP_ASSIGN(const auto name, r.bytes(n, "name"));
  b.bone.name.assign(name.begin(), name.end());
  RP_ASSIGN(b.opposite, r.s32("opposite"));
  RP_ASSIGN(b.parent, r.s32("parent"));
  RP_ASSIGN(b.hash, r.u32("hash"));
  RP_ASSIGN(b.flags, r.u32("flags"));
  return b;
}

// File order -> an order where every parent precedes its children (the model's rule), depth first
// from the roots; a bone on a parent cycle or with a parent out of range becomes a root.
std::vector<size_t> parentsFirst(std::vector<RawBone>& bones, Provenance& warn) {
  const size_t n = bones.size();
  std::vector<std::vector<size_t>> children(n);
  std::vector<size_t> roots;
  for (size_t i = 0; i < n; ++i) {
    const int32_t p = bones[i].parent;
    if (p >= 0 && static_cast<size_t>(p) < n && static_cast<size_t>(p) != i) {
      children[static_cast<size_t>(p)].push_back(i);
    } else {
      if (p != -1) {
        warn.warn("bone-parent", fmt::format("bone {} '{}': parent {} is not a bone of this {}-bone rig; made a root", i,
                                             bones[i].bone.name, p, n));
        bones[i].parent = -1;
      }
      roots.push_back(i);
    }
  }
  std::vector<size_t> order;
  std::vector<bool> seen(n, false);
  order.reserve(n);
  auto walk = [&](size_t root) {
    std::vector<size_t> stack{root};
    while (!stack.empty()) {
      const size_t i = stack.back();
      stack.pop_back();
      if (seen[i]) continue;
      seen[i] = true;
      order.push_back(i);
      for (auto it = children[i].rbegin(); it != children[i].rend(); ++it) stack.push_back(*it);
    }
  };
  for (size_t root : roots) walk(root);
  for (size_t i = 0; i < n; ++i) {
    if (seen[i]) continue;
    warn.warn("bone-parent", fmt::format("bone {} '{}' is on a parent cycle; made a root", i, bones[i].bone.name));
    bones[i].parent = -1;
    walk(i);
  }
  return order;
}

Result<Json> readChains(ByteReader& r, size_t boneCount, Provenance& warn) {
  RP_ASSIGN(const int32_t count, r.s32("chainCount"));
  RP_ASSIGN(const size_t n, r.count(count < 0 ? ~0ull : static_cast<uint64_t>(count), kChainFixedSize, "chainCount"));
  Json chains = Json::array();
  size_t outOfRange = 0;
  for (size_t i = 0; i < n; ++i) {
    auto scope = r.scope(Field("chain", static_cast<int64_t>(i)));
    RP_ASSIGN(const int32_t length, r.s32("boneCount"));
    RP_ASSIGN(const size_t m, r.count(length < 0 ? ~0ull : static_cast<uint64_t>(length), 4, "boneCount"));
    RP_ASSIGN(const std::vector<int32_t> bones, r.array<int32_t>(m, "bones"));
    RP_ASSIGN(const std::vector<int32_t> info, r.array<int32_t>(kChainInfoNodes, "infoNodes"));
    RP_ASSIGN(const std::vector<int32_t> tail, r.array<int32_t>(4, "poleSlotRoot"));
    for (int32_t b : bones) outOfRange += b < 0 || static_cast<size_t>(b) >= boneCount ? 1 : 0;
    chains.push_back(Json{{"bones", bones}, {"infoNodes", info}, {"pole", tail[0]}, {"slotInfo", tail[1]}, {"slotOffset", tail[2]},
                          {"root", tail[3]}});
  }
  if (outOfRange > 0) warn.warn("ik-chain-bone", fmt::format("{} IK chain bone indices are not bones of the rig; kept as stored", outOfRange));
  return chains;
}

}  // namespace

// The version pair is a weak magic (two small integers), so the bone count must also fit the file.
bool probeRig(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  auto major = r.u32("major");
  auto minor = r.u32("minor");
  auto bones = r.s32("boneCount");
  return major && minor && bones && isNewFormat(*major, *minor) && *bones >= 0 &&
         static_cast<uint64_t>(*bones) * kBoneFixedSize <= r.remaining();
}

Result<Rig> readRig(std::span<const uint8_t> bytes, ReadContext& ctx) {
  ByteReader r = ctx.reader(bytes);
  auto scope = r.scope("RIG");
  RP_ASSIGN(const uint32_t major, r.u32("major"));
  RP_ASSIGN(const uint32_t minor, r.u32("minor"));
  if (major == kType && minor == 0) {
    return r.errorAt(0, ErrorCode::Unsupported, "Granny2 rig (wrapped, 0x8EAF13DE + 0): not supported; rigport reads the new EA RIG format",
                     "major");
  }
  if (!isNewFormat(major, minor)) {
    return r.errorAt(0, ErrorCode::Unsupported,
                     fmt::format("Granny2 rig: not supported (version {}.{}; rigport reads the new EA RIG format, 3.x or 4.x)", major, minor),
                     "major");
  }
  Rig out;
  out.provenance.format = "sims3-rig";
  RP_ASSIGN(const int32_t boneCount, r.s32("boneCount"));
  RP_ASSIGN(const size_t n, r.count(boneCount < 0 ? ~0ull : static_cast<uint64_t>(boneCount), kBoneFixedSize, "boneCount"));
  std::vector<RawBone> bones;
  bones.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    auto boneScope = r.scope(Field("bone", static_cast<int64_t>(i)));
    RP_ASSIGN(bones.emplace_back(), readBone(r));
  }
  Json s3{{"major", major}, {"minor", minor}};
  if (major >= kChainsFromMajor || r.remaining() >= 4) {
    RP_ASSIGN(const int32_t length, r.s32("skeletonNameLength"));
    RP_ASSIGN(const size_t m, r.count(length < 0 ? ~0ull : static_cast<uint64_t>(length), 1, "skeletonNameLength"));
    RP_ASSIGN(const auto name, r.bytes(m, "skeletonName"));
    out.name.assign(name.begin(), name.end());
    s3["skeletonName"] = out.name;
  }
  if (major >= kChainsFromMajor) { RP_ASSIGN(s3["ikChains"], readChains(r, n, out.provenance)); }
  if (!r.atEnd()) out.provenance.warn("trailing-bytes", fmt::format("{} bytes after the IK chains at 0x{:X}; ignored", r.remaining(), r.fileOffset()));

  size_t badMirrors = 0, badHashes = 0;
  std::string firstMirror, firstHash;
  for (size_t i = 0; i < n; ++i) {
    const RawBone& b = bones[i];
    if (b.opposite < -1 || b.opposite >= static_cast<int32_t>(n)) {
      if (badMirrors++ == 0) firstMirror = fmt::format("bone {} '{}' names mirror bone {}", i, b.bone.name, b.opposite);
    }
    if (b.hash != fnv1_32Lower(b.bone.name)) {
      if (badHashes++ == 0) {
        firstHash = fmt::format("bone {} '{}' stores 0x{:08X}, its name hashes to 0x{:08X}", i, b.bone.name, b.hash, fnv1_32Lower(b.bone.name));
      }
    }
  }
  if (badMirrors > 0) {
    out.provenance.warn("mirror-index", fmt::format("{} bones name a mirror bone past the rig's {} bones (first: {}); kept, never used as an index",
                                                    badMirrors, n, firstMirror));
  }
  if (badHashes > 0) {
    out.provenance.warn("bone-hash", fmt::format("{} bones store a hash that is not FNV32 of their lower-cased name (first: {}); clips "
                                                 "bind by either", badHashes, firstHash));
  }

  const std::vector<size_t> order = parentsFirst(bones, out.provenance);
  std::vector<int32_t> newIndex(n, -1);
  for (size_t k = 0; k < order.size(); ++k) newIndex[order[k]] = static_cast<int32_t>(k);
  if (!std::is_sorted(order.begin(), order.end())) {
    out.provenance.warn("bone-order", "bones listed before their parents were reordered parents-first; mirror indices follow, IK "
                                      "chain indices keep the file's order");
  }
  out.skeleton.bones.reserve(n);
  for (size_t k = 0; k < order.size(); ++k) {
    RawBone& b = bones[order[k]];
    Bone bone = std::move(b.bone);
    bone.parent = b.parent < 0 ? -1 : newIndex[static_cast<size_t>(b.parent)];
    bone.nameHash = b.hash;
    bone.nameHashKind = HashKind::Fnv1_32Lower;
    const bool mirrorInRange = b.opposite >= 0 && b.opposite < static_cast<int32_t>(n);
    bone.extras = Json{{"sims3", {{"opposite", mirrorInRange ? newIndex[static_cast<size_t>(b.opposite)] : b.opposite}, {"flags", b.flags}}}};
    out.skeleton.bones.push_back(std::move(bone));
  }
  out.extras = Json{{"sims3", std::move(s3)}};
  return out;
}

Result<std::vector<uint8_t>> writeRig(const Rig& in) {
  const Json s3 = in.extras.is_object() ? in.extras.value("sims3", Json::object()) : Json::object();
  const uint32_t major = s3.value("major", kWriterMajor), minor = s3.value("minor", kWriterMinor);
  if (!isNewFormat(major, minor)) return makeError(ErrorCode::Usage, fmt::format("RIG version {}.{} is not the new EA format", major, minor));
  ByteWriter w;
  w.u32(major);
  w.u32(minor);
  const auto& bones = in.skeleton.bones;
  w.s32(static_cast<int32_t>(bones.size()));
  for (size_t i = 0; i < bones.size(); ++i) {
    const Bone& b = bones[i];
    for (int k = 0; k < 3; ++k) w.f32(b.translation[k]);
    w.f32(b.rotation.x), w.f32(b.rotation.y), w.f32(b.rotation.z), w.f32(b.rotation.w);
    for (int k = 0; k < 3; ++k) w.f32(b.scale[k]);
    w.s32(static_cast<int32_t>(b.name.size()));
    w.raw({reinterpret_cast<const uint8_t*>(b.name.data()), b.name.size()});
    const Json bs = b.extras.is_object() ? b.extras.value("sims3", Json::object()) : Json::object();
    w.s32(bs.value("opposite", static_cast<int32_t>(i)));
    w.s32(b.parent);
    const bool stored = b.nameHash && b.nameHashKind == HashKind::Fnv1_32Lower;
    w.u32(stored ? static_cast<uint32_t>(*b.nameHash) : fnv1_32Lower(b.name));
    w.u32(bs.value("flags", 0u));
  }
  const std::string name = s3.value("skeletonName", in.name);
  w.s32(static_cast<int32_t>(name.size()));
  w.raw({reinterpret_cast<const uint8_t*>(name.data()), name.size()});
  if (major >= kChainsFromMajor) {
    const Json chains = s3.value("ikChains", Json::array());
    w.s32(static_cast<int32_t>(chains.size()));
    for (const Json& c : chains) {
      const auto chainBones = c.value("bones", std::vector<int32_t>{});
      auto info = c.value("infoNodes", std::vector<int32_t>{});
      info.resize(kChainInfoNodes, -1);
      w.s32(static_cast<int32_t>(chainBones.size()));
      for (int32_t v : chainBones) w.s32(v);
      for (int32_t v : info) w.s32(v);
      for (const char* key : {"pole", "slotInfo", "slotOffset", "root"}) w.s32(c.value(key, -1));
    }
  }
  return w.take();
}

}  // namespace rigport::sims3
