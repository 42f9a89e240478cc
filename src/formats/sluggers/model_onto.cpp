// `convert --to sluggers-model --base ORIGINAL` (issue 28): the rig written into a copy of the
// original model block. A block holds much rigport does not model (TEX, facial poses, GPL user data,
// colours, display states and lists, the SKN's runtime matrices, skBzero and flush lists, ACT user
// data, unknown words, padding): every byte stays, except the values rigport models that the edit
// changed, each written where the reader read it and as the original stores it — bone SRTs in their
// Control's own form (§4: quaternion, scale and translation components, or a 3×4 matrix), vertex
// positions, normals and uvs re-quantised in their array's own GX type and fractional bits (§3;
// the skinned mesh's bind data in its SKN sources too, §6), skin weights in their SK2/SKAcc weight
// bytes. "Changed" is judged on values against what readModel reads of the original (the edit came
// back through glTF): within kRounding the original's bytes are kept, so an unedited round trip is
// byte-identical. The block never changes size: what would change a count or the structure is
// refused, naming the section and field — another bone count, name or parent (ACT bone records), a
// mesh count, name, vertex count or triangle (GPL descriptors, display lists), a rigid mesh on
// another bone (geoFileID), a value outside its array's range, an Euler rotation (its layout is not
// documented), weights the SKN entries cannot hold.
#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>
#include <glm/gtc/quaternion.hpp>

#include "formats/sluggers/act.hpp"
#include "formats/sluggers/model_onto.hpp"
#include "formats/sluggers/sluggers.hpp"

namespace rigport::sluggers {
namespace {

// §4 Control: u8 type, 3 pad, then f32 scale[3] @0x04, quaternion x,y,z,w @0x10, translation[3]
// @0x20; a matrix control (0x10) holds a row-major 3×4 matrix from 0x04.
enum ControlField : size_t { kControlScale = 0x04, kControlQuat = 0x10, kControlTranslation = 0x20, kControlMatrix = 0x04 };

void putF32(std::vector<uint8_t>& file, size_t at, float v) {
  const auto u = std::bit_cast<uint32_t>(v);
  for (size_t k = 0; k < 4; ++k) file[at + k] = static_cast<uint8_t>(u >> (24 - 8 * k));
}

std::string bonePath(const ModelPlaces& places, size_t b) { return fmt::format("ACT/bone[{}]", places.bones[b].table); }

// A block keeps its hierarchy in the bone records' DSBranch links and no bone names of its own: a
// game block's bones read as bone_<id>, and the names of a block rigport wrote are its user data.
BoneStore boneStore(const ModelPlaces& places) {
  BoneStore store{"ACT/boneCount", "bone records", "block", "the bone records' DSBranch links", {}, "",
                  "a block stores no bone names (a game block's bones read as bone_<id>; the names of a block rigport wrote are its own "
                  "user data, which --base keeps as it was)"};
  for (size_t b = 0; b < places.bones.size(); ++b) store.bonePaths.push_back(bonePath(places, b));
  return store;
}

struct Trs {
  glm::vec3 translation{0.0f};
  glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f};
  glm::vec3 scale{1.0f};
};

bool turned(const glm::quat& a, const glm::quat& b) {
  const glm::quat d = glm::inverse(a) * b;
  return glm::length(glm::vec3(d.x, d.y, d.z)) > kRounding;
}
bool moved(const glm::vec3& a, const glm::vec3& b, float tolerance) { return glm::any(glm::greaterThan(glm::abs(a - b), glm::vec3(tolerance))); }

// A matrix control: the new pose as its row-major 3×4 (§4).
void writeMatrixControl(OntoJob& job, size_t at, const glm::mat4& m) {
  for (int row = 0; row < 3; ++row)
    for (int col = 0; col < 4; ++col) putF32(job.file, at + kControlMatrix + 4 * static_cast<size_t>(row * 4 + col), m[col][row]);
}

// An SRT control: each component the edit changed, its type bit set where the original lacked it
// (the record has room for every component, §4); an Euler rotation or a scale-orientation scale,
// whose layouts the note does not give, is refused.
Status writeSrtControl(OntoJob& job, size_t b, const Trs& now) {
  const BonePlace& p = job.places.bones[b];
  const Control& was = p.control;
  uint8_t type = was.type;
  const std::string path = bonePath(job.places, b) + "/orientation";
  if (moved(was.translation, now.translation, job.length)) {
    type |= kCtrlTranslation;
    for (int k = 0; k < 3; ++k) putF32(job.file, p.controlAt + kControlTranslation + 4 * static_cast<size_t>(k), now.translation[k]);
  }
  if (turned(was.rotation, now.rotation)) {
    if ((was.type & kCtrlEuler) && !(was.type & kCtrlQuat)) {
      return refuse(path, fmt::format("bone '{}' is turned, and its control (type 0x{:02X}) holds an Euler rotation, whose axis order and "
                                      "units sluggers.md §4 does not give; --base keeps the original's control types",
                                      job.base.skeleton.bones[b].name, was.type));
    }
    type |= kCtrlQuat;
    const glm::quat q = glm::normalize(now.rotation);
    const float xyzw[4] = {q.x, q.y, q.z, q.w};
    for (size_t k = 0; k < 4; ++k) putF32(job.file, p.controlAt + kControlQuat + 4 * k, xyzw[k]);
  }
  if (moved(was.scale, now.scale, kRounding * std::max(1.0f, glm::length(was.scale)))) {
    if (was.type & kCtrlScaleOrientation) {
      return refuse(path, fmt::format("bone '{}' is scaled, and its control (type 0x{:02X}) scales along a scale-orientation "
                                      "quaternion whose place the note does not give (§4)",
                                      job.base.skeleton.bones[b].name, was.type));
    }
    type |= kCtrlScale;
    for (int k = 0; k < 3; ++k) putF32(job.file, p.controlAt + kControlScale + 4 * static_cast<size_t>(k), now.scale[k]);
  }
  job.file[p.controlAt] = type;
  return Ok{};
}

// Axes within kRounding of their length, translations within `length`.
bool nearMatrix(const glm::mat4& a, const glm::mat4& b, float length) {
  for (int c = 0; c < 4; ++c) {
    const float tolerance = c == 3 ? length : kRounding * std::max(1.0f, glm::length(glm::vec3(a[c])));
    if (moved(glm::vec3(a[c]), glm::vec3(b[c]), tolerance)) return false;
  }
  return true;
}

// Each bone whose stored pose the edit changed: its local pose, or its world pose where it does not
// inherit its parent's (§4: inheritanceFlag 0, the actor's space).
Status writeBones(OntoJob& job) {
  const std::vector<glm::mat4> wasWorld = job.base.skeleton.worldBindMatrices();
  const std::vector<glm::mat4> nowWorld = job.rig.skeleton.worldBindMatrices();
  for (size_t b = 0; b < job.places.bones.size(); ++b) {
    const BonePlace& p = job.places.bones[b];
    const Bone& now = job.rig.skeleton.bones[job.rigBone[b]];
    const glm::mat4 was = p.actorSpace ? wasWorld[b] : job.base.skeleton.bones[b].localMatrix();
    const glm::mat4 stored = p.actorSpace ? nowWorld[job.rigBone[b]] : now.localMatrix();
    if (nearMatrix(was, stored, job.length)) continue;
    if (p.controlAt == 0) {
      return refuse(bonePath(job.places, b) + "/orientation", fmt::format("bone '{}' is posed anew, and the original has no control for it "
                                                                          "(pointer 0, the identity); --base cannot add one",
                                                                          now.name));
    }
    if (p.control.type & kCtrlMatrix) {
      writeMatrixControl(job, p.controlAt, stored);
      continue;
    }
    Trs trs{now.translation, now.rotation, now.scale};
    if (p.actorSpace) decomposeTrs(stored, trs.translation, trs.rotation, trs.scale);
    RP_CHECK(writeSrtControl(job, b, trs));
  }
  return Ok{};
}

}  // namespace

Status storeComponent(OntoJob& job, size_t at, float v, GxType type, unsigned frac, const std::string& path) {
  if (storeGxComponent(job.file.data() + at, v, type, frac)) return Ok{};
  static constexpr const char* kTypes[] = {"u8", "s8", "u16", "s16", "f32"};
  const GxRange range = gxRange(type, frac);
  return refuse(path, fmt::format("{} does not fit the original's {} with {} fractional bits ({} to {}); --base keeps the original's "
                                  "quantisation: convert without --base for a new block",
                                  v, kTypes[static_cast<uint8_t>(type)], frac, range.lowest, range.highest));
}

Result<std::vector<uint8_t>> writeModelOnto(const Rig& rig, const Source& source, ReadContext& ctx) {
  const std::span<const uint8_t> bytes = source.bytes();
  ModelPlaces places;
  RP_ASSIGN(const Rig base, readModel(bytes, ctx, &places));
  RP_ASSIGN(std::vector<uint32_t> rigBone, matchBones(base.skeleton, rig.skeleton, boneStore(places)));
  OntoJob job{base, rig, places, std::move(rigBone), kRounding * largestCoordinate(base), std::vector<uint8_t>(bytes.begin(), bytes.end())};
  RP_CHECK(writeBones(job));
  RP_CHECK(writeMeshesOnto(job));
  return std::move(job.file);
}

}  // namespace rigport::sluggers
