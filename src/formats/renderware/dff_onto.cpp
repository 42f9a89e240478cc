// `convert --to renderware-dff --base ORIGINAL` (issue 28): the rig written into a copy of the
// original DFF. A DFF holds much rigport does not model (materials and their effects, extra and
// night vertex colours, 2dfx, collision, right-to-render, user data, breakable, unknown chunks):
// every byte stays, except the values rigport models that the edit changed — frame matrices,
// vertex positions, normals and first UVs, triangles, Skin PLG weights and inverse bind matrices.
// "Changed" is judged on values, not bytes, against what readDff reads of the original (the edit
// came back through glTF and is re-encoded): within kRounding the original's bytes are kept, so an
// unedited round trip is byte-identical. What the original's other chunks depend on is refused, not
// guessed: another bone, parent or mesh count, another vertex or triangle count (prelit colours,
// extra vertex colours, morph targets, UV sets and the Skin PLG hold one entry a vertex), an edit of
// native geometry (its vertices lie in the platform's layout in the Native Data PLG).
#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "formats/renderware/axes.hpp"
#include "formats/renderware/clump_rig.hpp"
#include "formats/renderware/dff_onto.hpp"
#include "formats/renderware/renderware.hpp"

namespace rigport::renderware {
namespace {

constexpr size_t kFrameColumnStride = 12;  // a FrameList record packs its matrix: no pads (§1.2)

// The rig's bone for each of the original's: by name where every name is found once, else by
// position. The hierarchy must be the original's: FrameList parents and HAnim PUSH/POP agree on it.
Result<std::vector<uint32_t>> matchBones(const Skeleton& base, const Skeleton& rig) {
  if (rig.bones.size() != base.bones.size()) {
    return refuse("Clump/FrameList", fmt::format("the rig has {} bones, the original {} (its frames and HAnim nodes); --base writes "
                                                 "onto the original's frames and cannot add or remove one: convert without --base "
                                                 "for a new file", rig.bones.size(), base.bones.size()));
  }
  std::unordered_map<std::string, uint32_t> byName;
  for (size_t i = 0; i < rig.bones.size(); ++i) byName.emplace(rig.bones[i].name, static_cast<uint32_t>(i));
  std::vector<uint32_t> match(base.bones.size());
  bool byPosition = byName.size() != rig.bones.size();
  for (size_t i = 0; i < base.bones.size() && !byPosition; ++i) {
    const auto it = byName.find(base.bones[i].name);
    byPosition = it == byName.end();
    if (!byPosition) match[i] = it->second;
  }
  for (size_t i = 0; i < match.size() && byPosition; ++i) match[i] = static_cast<uint32_t>(i);
  for (size_t i = 0; i < base.bones.size(); ++i) {
    const int32_t was = base.bones[i].parent;
    const int32_t now = rig.bones[match[i]].parent;
    const bool same = was < 0 ? now < 0 : now == static_cast<int32_t>(match[static_cast<size_t>(was)]);
    if (same) continue;
    return refuse("Clump/FrameList", fmt::format("bone '{}' hangs under '{}' in the rig, under '{}' in the original; --base keeps the "
                                                 "original's hierarchy (FrameList parents, HAnim PLG)", rig.bones[match[i]].name,
                                                 now < 0 ? "nothing" : rig.bones[static_cast<size_t>(now)].name,
                                                 was < 0 ? "nothing" : base.bones[static_cast<size_t>(was)].name));
  }
  return match;
}

// The model's size (bounding box of bones and vertices): lengths round in proportion to it.
float modelSize(const Rig& rig) {
  glm::vec3 lo(0.0f), hi(0.0f);
  for (const glm::mat4& m : rig.skeleton.worldBindMatrices()) {
    lo = glm::min(lo, glm::vec3(m[3]));
    hi = glm::max(hi, glm::vec3(m[3]));
  }
  for (const Mesh& mesh : rig.meshes) {
    for (const glm::vec3& p : mesh.positions) {
      lo = glm::min(lo, p);
      hi = glm::max(hi, p);
    }
  }
  return glm::length(hi - lo);
}

// A bone turned or moved: its frame gets the rig's local matrix. Where readDff posed the bone
// otherwise than its frame (the skin's bind pose, a clump frame's turn dropped; bind_pose.hpp),
// the frame takes the same change: F' = F · L⁻¹ · L'.
void writeFrames(OntoJob& job) {
  std::vector<RwFrame> frames(job.places.frames.size());
  for (size_t f = 0; f < frames.size(); ++f) frames[f].parent = job.places.frames[f].parent;
  const std::vector<uint32_t> order = parentFirstOrder(frames);  // readDff checked there is no cycle
  for (size_t b = 0; b < order.size(); ++b) {
    const glm::mat4 was = job.base.skeleton.bones[b].localMatrix();
    const glm::mat4 now = job.rig.skeleton.bones[job.rigBone[b]].localMatrix();
    if (near(was, now, job.length)) continue;
    const size_t at = job.places.frames[order[b]].at;
    const glm::mat4 frame = getRwMatrix(job.file, at, kFrameColumnStride);
    putRwMatrix(job.file, at, kFrameColumnStride, near(frame, was, job.length) ? now : frame * glm::inverse(was) * now);
  }
}

}  // namespace

Error refuse(std::string path, std::string message) {
  Error e = makeError(ErrorCode::Usage, std::move(message));
  e.path = std::move(path);
  return e;
}

void putU8(std::vector<uint8_t>& file, size_t at, uint8_t v) { file[at] = v; }
void putU16(std::vector<uint8_t>& file, size_t at, uint16_t v) {
  file[at] = static_cast<uint8_t>(v);
  file[at + 1] = static_cast<uint8_t>(v >> 8);
}
void putU32(std::vector<uint8_t>& file, size_t at, uint32_t v) {
  for (int k = 0; k < 4; ++k) file[at + static_cast<size_t>(k)] = static_cast<uint8_t>(v >> (8 * k));
}
void putF32(std::vector<uint8_t>& file, size_t at, float v) { putU32(file, at, std::bit_cast<uint32_t>(v)); }
uint32_t getU32(const std::vector<uint8_t>& file, size_t at) {
  uint32_t v = 0;
  for (int k = 3; k >= 0; --k) v = v << 8 | file[at + static_cast<size_t>(k)];
  return v;
}
float getF32(const std::vector<uint8_t>& file, size_t at) { return std::bit_cast<float>(getU32(file, at)); }

glm::mat4 getRwMatrix(const std::vector<uint8_t>& file, size_t at, size_t columnStride) {
  glm::mat4 m(1.0f);
  for (size_t c = 0; c < 4; ++c) {
    for (size_t k = 0; k < 3; ++k) m[static_cast<int>(c)][static_cast<int>(k)] = getF32(file, at + c * columnStride + 4 * k);
  }
  return m;
}
void putRwMatrix(std::vector<uint8_t>& file, size_t at, size_t columnStride, const glm::mat4& m) {
  for (size_t c = 0; c < 4; ++c) {
    for (size_t k = 0; k < 3; ++k) putF32(file, at + c * columnStride + 4 * k, m[static_cast<int>(c)][static_cast<int>(k)]);
  }
}

// Axes and scales within kRounding of their size, translations within `length`.
bool near(const glm::mat4& a, const glm::mat4& b, float length) {
  for (int c = 0; c < 4; ++c) {
    for (int k = 0; k < 3; ++k) {
      const float tolerance = c == 3 ? length : kRounding * std::max(1.0f, std::fabs(a[c][k]));
      if (!(std::fabs(a[c][k] - b[c][k]) <= tolerance)) return false;  // NaN: changed
    }
  }
  return true;
}

Result<std::vector<uint8_t>> writeDffOnto(const Rig& input, const Source& source, ReadContext& ctx) {
  const std::span<const uint8_t> bytes = source.bytes();
  RP_ASSIGN(const Rig base, readDff(bytes, ctx));
  RP_ASSIGN(const DffPlaces places, findPlaces(bytes));
  std::optional<Rig> converted;
  const Rig& rig = inRenderWareAxes(input, converted);
  RP_ASSIGN(std::vector<uint32_t> rigBone, matchBones(base.skeleton, rig.skeleton));
  OntoJob job{base, rig, places, std::move(rigBone), kRounding * std::max(1.0f, modelSize(base)),
              std::vector<uint8_t>(bytes.begin(), bytes.end()), {}};
  writeFrames(job);
  RP_CHECK(writeGeometriesOnto(job));
  applySplices(job.file, std::move(job.splices), places.chunks);
  return std::move(job.file);
}

}  // namespace rigport::renderware
