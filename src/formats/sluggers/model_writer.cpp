// Rig → model block (sluggers.md §2 header, §3 GPL, §4 ACT, §6 SKN). No TEX section (no texture is
// encoded to GX yet): a material's texture bind (extras.sluggers) is written as it was read, so a
// block's binds survive a round trip by index, not its pixels.
#include <cmath>

#include <fmt/format.h>

#include "core/byte_writer.hpp"
#include "core/validate.hpp"
#include "formats/sluggers/sluggers.hpp"
#include "formats/sluggers/writer_parts.hpp"

namespace rigport::sluggers {
namespace {

size_t align32(size_t v) { return (v + kSectionAlignment - 1) / kSectionAlignment * kSectionAlignment; }

Result<std::vector<uint8_t>> writeGpl(const Rig& rig, int32_t skinned, uint8_t shift, const ModelWriteOptions& options) {
  std::vector<std::vector<uint8_t>> blobs;
  for (size_t m = 0; m < rig.meshes.size(); ++m) {
    RP_ASSIGN(blobs.emplace_back(), writeMeshBlob(rig.meshes[m], rig.materials, m, static_cast<int32_t>(m) == skinned, shift, options));
  }
  const size_t descriptors = align32(kGplHeaderSize);
  size_t at = descriptors + rig.meshes.size() * kGplDescriptorSize;
  std::vector<size_t> nameAt;
  for (const Mesh& m : rig.meshes) {
    nameAt.push_back(at);
    at += m.name.size() + 1;
  }
  std::vector<size_t> layoutAt;
  for (const auto& b : blobs) {
    at = align32(at);
    layoutAt.push_back(at);
    at += b.size();
  }
  ByteWriter w(Endian::Big);
  w.reserve(at);
  w.u32(kGplMagic);
  w.u32(0);  // user data: none
  w.u32(0);
  w.u32(static_cast<uint32_t>(rig.meshes.size()));
  w.u32(static_cast<uint32_t>(descriptors));
  w.align(kSectionAlignment);
  for (size_t m = 0; m < rig.meshes.size(); ++m) {
    w.u32(static_cast<uint32_t>(layoutAt[m]));
    w.u32(static_cast<uint32_t>(nameAt[m]));
  }
  for (const Mesh& m : rig.meshes) w.cString(m.name);
  for (const auto& b : blobs) {
    w.align(kSectionAlignment);
    w.raw(b);
  }
  return w.take();
}

// Sibling chains in table order: children of each bone, and the roots chained from the first.
struct Links {
  std::vector<int32_t> firstChild, next, prev;
  int32_t root = -1;
};
Links links(const Skeleton& sk) {
  const size_t n = sk.bones.size();
  Links l{std::vector<int32_t>(n, -1), std::vector<int32_t>(n, -1), std::vector<int32_t>(n, -1), -1};
  std::vector<int32_t> last(n, -1);
  int32_t lastRoot = -1;
  for (size_t i = 0; i < n; ++i) {
    const int32_t p = sk.bones[i].parent;
    int32_t& tail = p >= 0 ? last[static_cast<size_t>(p)] : lastRoot;
    if (tail >= 0) {
      l.next[static_cast<size_t>(tail)] = static_cast<int32_t>(i);
      l.prev[i] = tail;
    } else if (p >= 0) {
      l.firstChild[static_cast<size_t>(p)] = static_cast<int32_t>(i);
    } else {
      l.root = static_cast<int32_t>(i);
    }
    tail = static_cast<int32_t>(i);
  }
  return l;
}

// The runtime's boneArray order for these links ([CP] InitBone, depth-first pre-order).
std::vector<uint16_t> depthFirstPositions(const Links& l, size_t n) {
  std::vector<uint16_t> position(n, 0);
  uint16_t next = 0;
  std::vector<int32_t> pending{l.root};
  while (!pending.empty()) {
    int32_t b = pending.back();
    pending.pop_back();
    for (; b >= 0; b = l.firstChild[static_cast<size_t>(b)]) {
      position[static_cast<size_t>(b)] = next++;
      if (l.next[static_cast<size_t>(b)] >= 0) pending.push_back(l.next[static_cast<size_t>(b)]);
    }
  }
  return position;
}

std::vector<uint8_t> writeAct(const Rig& rig, const Links& l, int32_t skinned) {
  const size_t n = rig.skeleton.bones.size();
  auto record = [](int32_t b) { return b < 0 ? 0u : static_cast<uint32_t>(kActHeaderSize + size_t(b) * kBoneRecordSize); };
  const size_t controls = kActHeaderSize + n * kBoneRecordSize;
  const size_t geoName = controls + n * kControlSize;
  const std::string geo = (rig.name.empty() ? std::string("model") : rig.name) + ".gpl";
  const size_t userData = (geoName + geo.size() + 1 + 3) & ~size_t(3);
  std::string names;
  for (const Bone& b : rig.skeleton.bones) names += b.name + '\0';
  const size_t namesBytes = (names.size() + 3) & ~size_t(3);
  const size_t userDataSize = n == 0 ? 0 : kUserDataHeaderSize + namesBytes;

  std::vector<uint16_t> geoOf(n, kNoGeo);
  for (size_t m = 0; m < rig.meshes.size(); ++m) {
    if (static_cast<int32_t>(m) != skinned && rig.meshes[m].attachBone >= 0) geoOf[static_cast<size_t>(rig.meshes[m].attachBone)] = static_cast<uint16_t>(m);
  }
  ByteWriter w(Endian::Big);
  w.u32(kActMagic);
  w.u16(0);  // actorID
  w.u16(static_cast<uint16_t>(n));
  w.u32(0);  // DSTree.Offset
  w.u32(record(l.root));
  w.u32(static_cast<uint32_t>(geoName));
  w.u16(skinned >= 0 ? static_cast<uint16_t>(skinned) : kNoGeo);
  w.u16(0);
  w.u32(static_cast<uint32_t>(userDataSize));
  w.u32(userDataSize == 0 ? 0 : static_cast<uint32_t>(userData));
  for (size_t i = 0; i < n; ++i) {
    w.u32(static_cast<uint32_t>(controls + i * kControlSize));
    w.u32(record(l.prev[i]));
    w.u32(record(l.next[i]));
    w.u32(record(rig.skeleton.bones[i].parent));
    w.u32(record(l.firstChild[i]));
    w.u16(geoOf[i]);
    w.u16(static_cast<uint16_t>(i));  // §4: bone id equals table index in every vanilla model
    w.u8(1);                          // inherits its parent's transform
    w.u8(0);
    w.u16(0);
  }
  for (const Bone& b : rig.skeleton.bones) {
    // §4: every known block marks its SRTs 0x0C (rotation and translation), and community tools
    // read other types as identity; the scale bit (0x0D), which the runtime honours, only where a
    // bone is scaled.
    const bool scaled = b.scale != glm::vec3(1.0f);
    w.u8(static_cast<uint8_t>(kCtrlQuat | kCtrlTranslation | (scaled ? kCtrlScale : 0)));
    w.zeros(3);
    for (float v : {b.scale.x, b.scale.y, b.scale.z, b.rotation.x, b.rotation.y, b.rotation.z, b.rotation.w, b.translation.x,
                    b.translation.y, b.translation.z})
      w.f32(v);
    w.zeros(8);
  }
  w.cString(geo);
  w.align(4);
  if (userDataSize != 0) {
    w.u32(static_cast<uint32_t>(userDataSize));
    w.u16(kUserDataRigportNames);
    w.u16(static_cast<uint16_t>(n));
    w.u32(static_cast<uint32_t>(userData + kUserDataHeaderSize));
    w.fixedString(names, namesBytes);
  }
  return w.take();
}

}  // namespace

// The least |det| / (product of axis lengths) of a bone's bind world matrix the writer accepts.
constexpr double kMinAxisVolume = 1e-6;

Result<std::vector<uint8_t>> writeModel(const Rig& rig, const ModelWriteOptions& options) {
  RP_CHECK(validate(rig));
  const size_t nb = rig.skeleton.bones.size();
  if (nb > 0xFFFF) return invalidModel("skeleton", fmt::format("{} bones; an ACT holds at most 65535", nb));
  // The block keeps only the SRTs; a reader rebuilds the bind matrices and their inverses from them.
  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  for (size_t b = 0; b < nb; ++b) {
    const glm::mat4 inverse = glm::inverse(world[b]);
    for (int c = 0; c < 4; ++c) {
      for (int r = 0; r < 4; ++r) {
        if (!std::isfinite(world[b][c][r]) || !std::isfinite(inverse[c][r])) {
          return invalidModel(fmt::format("skeleton/bones[{}]", b), "the bind pose built from its SRT is singular or not finite");
        }
      }
    }
    // Nearly singular is refused too: rebuilt from the SRTs as stored (floats), such a pose can
    // come out singular, and the block would not read back (a fuzz finding: a scale of 3.6e17 under
    // a rotation). |det| against the product of the column lengths is 1 for a rigid pose and tends
    // to 0 as the axes collapse onto each other.
    const glm::dmat3 axes(world[b]);
    const double lengths = glm::length(axes[0]) * glm::length(axes[1]) * glm::length(axes[2]);
    if (!(std::fabs(glm::determinant(axes)) > kMinAxisVolume * lengths)) {
      return invalidModel(fmt::format("skeleton/bones[{}]", b), "the bind pose built from its SRT is nearly singular (its axes collapse)");
    }
  }
  int32_t skinned = -1;
  std::vector<bool> owned(nb, false);
  for (size_t m = 0; m < rig.meshes.size(); ++m) {
    const Mesh& mesh = rig.meshes[m];
    const std::string path = fmt::format("meshes[{}]", m);
    if (mesh.skinned()) {
      if (skinned >= 0) return invalidModel(path, fmt::format("a second skinned mesh (mesh {} is one); the format skins one submesh (§3)", skinned));
      skinned = static_cast<int32_t>(m);
      continue;
    }
    if (mesh.attachBone < 0) return invalidModel(path, "an unskinned mesh must ride a bone (§3: rigid submeshes are in their owner bone's space)");
    if (owned[static_cast<size_t>(mesh.attachBone)]) {
      return invalidModel(path, fmt::format("bone {} already carries a rigid mesh; a bone owns one (geoFileID, §4)", mesh.attachBone));
    }
    owned[static_cast<size_t>(mesh.attachBone)] = true;
  }
  if (rig.meshes.size() > 0xFFFE) return invalidModel("meshes", "more meshes than geoFileID can name");

  const Links l = links(rig.skeleton);
  std::vector<uint16_t> boneIndex(nb);
  if (options.depthFirstBoneIndex) {
    boneIndex = depthFirstPositions(l, nb);
  } else {
    for (size_t b = 0; b < nb; ++b) boneIndex[b] = static_cast<uint16_t>(b);
  }
  uint8_t shift = 0;
  std::vector<uint8_t> skn;
  if (skinned >= 0) {
    const Mesh& mesh = rig.meshes[static_cast<size_t>(skinned)];
    RP_ASSIGN(shift, chooseSkinShift(mesh, static_cast<size_t>(skinned)));
    RP_ASSIGN(skn, writeSkn(mesh, boneIndex, shift, skinnedArray(mesh, shift)));
  }
  RP_ASSIGN(const std::vector<uint8_t> gpl, writeGpl(rig, skinned, shift, options));
  const std::vector<uint8_t> act = writeAct(rig, l, skinned);

  const size_t gplAt = kBlockHeaderSize;
  const size_t actAt = align32(gplAt + gpl.size());
  const size_t sknAt = align32(actAt + act.size());
  ByteWriter w(Endian::Big);
  w.reserve(sknAt + skn.size() + kSectionAlignment);
  w.u32(0);
  w.u32(static_cast<uint32_t>(gplAt));
  w.u32(static_cast<uint32_t>(actAt));
  w.u32(0);  // TEX
  w.u32(skn.empty() ? 0 : static_cast<uint32_t>(sknAt));
  w.zeros(kBlockHeaderSize - 0x14);
  w.raw(gpl);
  w.align(kSectionAlignment);
  w.raw(act);
  w.align(kSectionAlignment);
  w.raw(skn);
  w.align(kSectionAlignment);
  return w.take();
}

}  // namespace rigport::sluggers
