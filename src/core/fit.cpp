#include "core/fit.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/fit_keys.hpp"

namespace rigport {
namespace {

// Per vertex: duplicate bones merged, the largest `keep` weights kept (ties by bone order),
// renormalised to their original sum. Returns how many vertices lost an influence and the largest
// weight any of them lost (as a share of that vertex's total).
std::pair<size_t, float> reduceInfluences(Mesh& mesh, uint32_t keep) {
  std::vector<uint32_t> offsets{0};
  InfluenceList kept;
  kept.reserve(mesh.influences.size());
  size_t reduced = 0;
  float worst = 0.0f;
  std::vector<Influence> v;
  for (size_t i = 0; i + 1 < mesh.influenceOffsets.size(); ++i) {
    v.assign(mesh.influences.begin() + mesh.influenceOffsets[i], mesh.influences.begin() + mesh.influenceOffsets[i + 1]);
    std::stable_sort(v.begin(), v.end(), [](const Influence& a, const Influence& b) { return a.bone < b.bone; });
    std::vector<Influence> merged;
    for (const Influence& inf : v) {
      if (!merged.empty() && merged.back().bone == inf.bone) merged.back().weight += inf.weight;
      else merged.push_back(inf);
    }
    if (merged.size() > keep) {
      std::stable_sort(merged.begin(), merged.end(), [](const Influence& a, const Influence& b) { return a.weight > b.weight; });
      double total = 0, keptWeight = 0;
      for (size_t k = 0; k < merged.size(); ++k) (k < keep ? keptWeight : total) += merged[k].weight;
      total += keptWeight;
      if (total > 0) worst = std::max(worst, static_cast<float>(merged[keep].weight / total));
      merged.resize(keep);
      if (keptWeight > 0) {
        for (Influence& inf : merged) inf.weight = static_cast<float>(inf.weight * (total / keptWeight));
      }
      ++reduced;
    }
    kept.insert(kept.end(), merged.begin(), merged.end());
    offsets.push_back(static_cast<uint32_t>(kept.size()));
  }
  mesh.influences = std::move(kept);
  mesh.influenceOffsets = std::move(offsets);
  return {reduced, worst};
}

}  // namespace

std::vector<Mesh> splitMesh(const Mesh& mesh, uint32_t limit) {
  std::vector<Mesh> pieces;
  std::vector<int64_t> remap(mesh.positions.size(), -1);
  std::vector<uint32_t> touched;
  Mesh* piece = nullptr;
  const auto start = [&] {
    for (uint32_t v : touched) remap[v] = -1;
    touched.clear();
    pieces.emplace_back();
    piece = &pieces.back();
    piece->name = fmt::format("{}_{}", mesh.name, pieces.size() - 1);
    piece->attachBone = mesh.attachBone;
    if (mesh.skinned()) piece->influenceOffsets.push_back(0);
    // Each piece keeps every shape key, with the deltas of its own vertices.
    piece->morphWeights = mesh.morphWeights;
    piece->morphTargets.resize(mesh.morphTargets.size());
    for (size_t t = 0; t < mesh.morphTargets.size(); ++t) piece->morphTargets[t].name = mesh.morphTargets[t].name;
  };
  const auto vertex = [&](uint32_t v) -> uint32_t {
    if (remap[v] >= 0) return static_cast<uint32_t>(remap[v]);
    const auto n = static_cast<uint32_t>(piece->positions.size());
    remap[v] = n;
    touched.push_back(v);
    piece->positions.push_back(mesh.positions[v]);
    if (!mesh.normals.empty()) piece->normals.push_back(mesh.normals[v]);
    if (!mesh.uvs.empty()) piece->uvs.push_back(mesh.uvs[v]);
    for (size_t t = 0; t < mesh.morphTargets.size(); ++t) {
      const MorphTarget& target = mesh.morphTargets[t];
      piece->morphTargets[t].positionDeltas.push_back(target.positionDeltas[v]);
      if (!target.normalDeltas.empty()) piece->morphTargets[t].normalDeltas.push_back(target.normalDeltas[v]);
    }
    if (mesh.skinned()) {
      piece->influences.insert(piece->influences.end(), mesh.influences.begin() + mesh.influenceOffsets[v],
                               mesh.influences.begin() + mesh.influenceOffsets[v + 1]);
      piece->influenceOffsets.push_back(static_cast<uint32_t>(piece->influences.size()));
    }
    return n;
  };
  const auto fresh = [&](uint32_t v) { return remap[v] < 0 ? 1u : 0u; };
  // Triangles part by part, so that each piece keeps the materials of the triangles it holds.
  std::vector<MeshPart> parts = mesh.parts;
  if (parts.empty()) parts.push_back(MeshPart{0, 0, static_cast<uint32_t>(mesh.indices.size())});
  start();
  for (const MeshPart& part : parts) {
    MeshPart* open = nullptr;
    for (uint32_t i = part.firstIndex; i + 3 <= part.firstIndex + part.indexCount && i + 3 <= mesh.indices.size(); i += 3) {
      const uint32_t a = mesh.indices[i], b = mesh.indices[i + 1], c = mesh.indices[i + 2];
      if (piece->positions.size() + fresh(a) + fresh(b) + fresh(c) > limit) {
        start();
        open = nullptr;
      }
      if (open == nullptr && !mesh.parts.empty()) {
        piece->parts.push_back(MeshPart{part.material, static_cast<uint32_t>(piece->indices.size()), 0});
        open = &piece->parts.back();
      }
      piece->indices.insert(piece->indices.end(), {vertex(a), vertex(b), vertex(c)});
      if (open != nullptr) open->indexCount += 3;
    }
  }
  // A mesh without triangles (a point cloud) is cut into runs of vertices; vertices that no
  // triangle uses in a mesh with triangles have nothing to draw and are left out.
  if (mesh.indices.empty()) {
    for (uint32_t v = 0; v < mesh.positions.size(); ++v) {
      if (piece->positions.size() + 1 > limit) start();
      vertex(v);
    }
  }
  return pieces;
}

namespace {

bool printableAscii(char c) { return c >= 0x20 && c < 0x7F; }

// `name` with each character outside printable ASCII (a whole UTF-8 sequence) as '_', and made
// unique among `taken` with a numeric suffix (two names may differ only where they are replaced).
std::string asciiSpelling(const std::string& name, const std::set<std::string>& taken) {
  std::string out;
  for (size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (printableAscii(static_cast<char>(c))) {
      out.push_back(static_cast<char>(c));
      continue;
    }
    out.push_back('_');
    while (c >= 0xC0 && i + 1 < name.size() && (static_cast<unsigned char>(name[i + 1]) & 0xC0) == 0x80) ++i;  // the rest of its sequence
  }
  if (out.empty()) out = "bone";
  std::string unique = out;
  for (int n = 2; taken.count(unique) != 0; ++n) unique = fmt::format("{}_{}", out, n);
  return unique;
}

// Bone names outside printable ASCII (the format's readers stop at the first such byte) spelled in
// it; one warning lists the renames.
void asciiBoneNames(Rig& rig, std::string_view format) {
  auto& bones = rig.skeleton.bones;
  std::set<std::string> taken;
  for (const Bone& b : bones) taken.insert(b.name);
  std::vector<std::string> renames;
  for (Bone& b : bones) {
    if (std::all_of(b.name.begin(), b.name.end(), printableAscii) && !b.name.empty()) continue;
    std::string spelled = asciiSpelling(b.name, taken);
    taken.insert(spelled);
    renames.push_back(fmt::format("'{}' as '{}'", printable(b.name), spelled));
    b.name = std::move(spelled);
  }
  if (renames.empty()) return;
  constexpr size_t kListed = 8;
  std::string list;
  for (size_t i = 0; i < std::min(renames.size(), kListed); ++i) list += (i ? ", " : "") + renames[i];
  if (renames.size() > kListed) list += fmt::format(" and {} more", renames.size() - kListed);
  rig.provenance.warn("names-ascii", fmt::format("{} bone names are not printable ASCII, which {} stores: written {}", renames.size(), format, list));
}

// Bone names repeated (Blender names its armature object, a node above the joints, after the root
// bone it imported: two 'root's) made unique with a numeric suffix; joints keep their names first,
// as the skin binds by them. One warning lists the renames.
void uniqueBoneNames(Rig& rig, std::string_view format) {
  auto& bones = rig.skeleton.bones;
  std::vector<bool> joint(bones.size(), false);
  for (uint32_t j : rig.skeleton.jointList())
    if (j < joint.size()) joint[j] = true;
  std::set<std::string> taken;
  std::vector<size_t> repeated;
  for (const bool joints : {true, false}) {
    for (size_t i = 0; i < bones.size(); ++i)
      if (joint[i] == joints && !taken.insert(bones[i].name).second) repeated.push_back(i);
  }
  if (repeated.empty()) return;
  std::string list;
  for (const size_t i : repeated) {
    std::string unique = bones[i].name;
    for (int n = 2; taken.count(unique) != 0; ++n) unique = fmt::format("{}_{}", bones[i].name, n);
    taken.insert(unique);
    list += fmt::format("{}'{}' ({}) as '{}'", list.empty() ? "" : ", ", printable(bones[i].name), joint[i] ? "a joint" : "no joint", unique);
    bones[i].name = std::move(unique);
  }
  rig.provenance.warn("names-unique", fmt::format("{} bone names are repeated, which {} cannot store: written {}", repeated.size(), format, list));
}

// A rig whose children do not inherit their parent's scale (Spore) written to a format whose
// children do, or the other way round: the bones under a scaled parent pose differently; say which
// and how many.
void warnScaleInheritance(Rig& rig, bool formatInherits, std::string_view format) {
  if (rig.skeleton.inheritScale == formatInherits) return;
  const auto& bones = rig.skeleton.bones;
  std::vector<bool> scaled(bones.size(), false);
  for (size_t b = 0; b < bones.size(); ++b) scaled[b] = bones[b].scale != glm::vec3(1.0f);
  for (const Animation& anim : rig.animations)
    for (const BoneTrack& t : anim.tracks)
      if (t.bone >= 0 && static_cast<size_t>(t.bone) < bones.size() && !t.scale.values.empty()) scaled[static_cast<size_t>(t.bone)] = true;
  size_t children = 0;
  std::string first;
  for (const Bone& b : bones) {
    if (b.parent < 0 || !scaled[static_cast<size_t>(b.parent)]) continue;
    if (children++ == 0) first = b.name;
  }
  if (children == 0) return;
  rig.provenance.warn("scale-inheritance", fmt::format("the source's children {} their parent's scale, {}'s {}: {} bones under a scaled "
                                                       "parent (first '{}') pose differently there",
                                                       formatInherits ? "do not inherit" : "inherit", format, formatInherits ? "do" : "do not",
                                                       children, printable(first)));
}

// A mesh riding bone b (a prop on a hand) for a format whose meshes are all skinned: bound to b
// with weight 1, each vertex p of b's space moved to bind space as B·p, B = inverse(b's inverse
// bind matrix), so that skinning (W_b · B⁻¹ · B · p) puts it where riding put it (W_b · p), in
// every pose. Without this the writers' fallback binding would leave it at bone-local coordinates
// in model space: a helmet at the feet.
Status bindRiders(Rig& rig, std::string_view format) {
  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  std::vector<uint32_t> joints = rig.skeleton.jointList();
  size_t bound = 0;
  std::string first;
  for (Mesh& mesh : rig.meshes) {
    if (mesh.skinned() || mesh.attachBone < 0) continue;
    const auto b = static_cast<size_t>(mesh.attachBone);
    const Bone& bone = rig.skeleton.bones[b];
    const std::optional<glm::mat4> inverse = bone.inverseBind ? bone.inverseBind : inverseOfBindPose(world[b]);
    if (!inverse) {
      return makeError(ErrorCode::Usage, fmt::format("mesh '{}' rides bone '{}', whose bind pose has no inverse (a zero scale); {} skins every "
                                                     "mesh, so it cannot be placed: nothing was written",
                                                     printable(mesh.name), printable(bone.name), format));
    }
    const glm::mat4 bind = glm::inverse(*inverse);
    const glm::mat3 normalMatrix = glm::transpose(glm::inverse(glm::mat3(bind)));
    for (glm::vec3& p : mesh.positions) p = glm::vec3(bind * glm::vec4(p, 1.0f));
    for (glm::vec3& n : mesh.normals) {
      const glm::vec3 moved = normalMatrix * n;
      if (glm::length(moved) > 0.0f) n = glm::normalize(moved);
    }
    // Deltas are vectors: the bind's linear part alone (never its translation).
    for (MorphTarget& target : mesh.morphTargets) {
      for (glm::vec3& d : target.positionDeltas) d = glm::mat3(bind) * d;
      for (glm::vec3& d : target.normalDeltas) d = normalMatrix * d;
    }
    mesh.influences.assign(mesh.positions.size(), Influence{static_cast<uint32_t>(b), 1.0f});
    mesh.influenceOffsets.resize(mesh.positions.size() + 1);
    std::iota(mesh.influenceOffsets.begin(), mesh.influenceOffsets.end(), 0u);
    mesh.attachBone = -1;
    if (std::find(joints.begin(), joints.end(), static_cast<uint32_t>(b)) == joints.end()) joints.push_back(static_cast<uint32_t>(b));
    if (bound++ == 0) first = mesh.name;
  }
  if (bound == 0) return Ok{};
  if (!rig.skeleton.joints.empty()) rig.skeleton.joints = std::move(joints);
  rig.provenance.warn("meshes-bound-to-bone", fmt::format("{} mesh{} riding a bone (first '{}') bound to that bone with weight 1, since {} skins "
                                                          "every mesh; the pose is unchanged",
                                                          bound, bound == 1 ? "" : "es", printable(first), format));
  return Ok{};
}

// A format without morph targets: every mesh's targets and every clip's weight keys dropped, one
// warning per mesh with its target count and how far that moves a vertex at most.
void dropMorphTargets(Rig& rig, std::string_view format) {
  for (size_t m = 0; m < rig.meshes.size(); ++m) {
    Mesh& mesh = rig.meshes[m];
    if (mesh.morphTargets.empty()) continue;
    const float bound = morphLossBound(mesh, m, rig.animations) * rig.provenance.axes.metresPerUnit;
    size_t keyed = 0;
    for (const Animation& anim : rig.animations) {
      for (const MorphWeightTrack& track : anim.morphWeights) keyed += track.meshIndex == static_cast<int32_t>(m);
    }
    rig.provenance.warn("morph-targets-dropped",
                        fmt::format("mesh '{}': {} morph target{} (shape keys){} dropped; {} stores none, so its vertices rest at their base "
                                    "shape, up to {:.3g} m from where the shape keys put them",
                                    printable(mesh.name), mesh.morphTargets.size(), mesh.morphTargets.size() == 1 ? "" : "s",
                                    keyed > 0 ? fmt::format(" and {} weight track{}", keyed, keyed == 1 ? "" : "s") : "",
                                    format, bound));
    mesh.morphTargets.clear();
    mesh.morphWeights.clear();
  }
  for (Animation& anim : rig.animations) anim.morphWeights.clear();
}

}  // namespace

void followSplitMeshes(Rig& rig, const std::vector<std::pair<std::string, size_t>>& splits) {
  for (Animation& anim : rig.animations) {
    std::vector<MorphWeightTrack> tracks;
    for (MorphWeightTrack& track : anim.morphWeights) {
      const auto split = std::find_if(splits.begin(), splits.end(), [&](const auto& s) { return s.first == track.mesh; });
      if (split == splits.end()) {
        tracks.push_back(std::move(track));
        continue;
      }
      for (size_t p = 0; p < split->second; ++p) {
        tracks.push_back(track);
        tracks.back().mesh = fmt::format("{}_{}", track.mesh, p);
      }
    }
    anim.morphWeights = std::move(tracks);
    for (MorphWeightTrack& track : anim.morphWeights) {
      track.meshIndex = -1;
      for (size_t m = 0; m < rig.meshes.size() && track.meshIndex < 0; ++m) {
        if (track.drives(rig.meshes[m])) track.meshIndex = static_cast<int32_t>(m);
      }
    }
  }
}

float morphLossBound(const Mesh& mesh, size_t meshIndex, const std::vector<Animation>& animations) {
  float bound = 0.0f;
  for (size_t t = 0; t < mesh.morphTargets.size(); ++t) {
    const float longest = static_cast<float>(mesh.morphTargets[t].longestDelta());
    float weight = t < mesh.morphWeights.size() ? std::fabs(mesh.morphWeights[t]) : 0.0f;
    for (const Animation& anim : animations) {
      for (const MorphWeightTrack& track : anim.morphWeights) {
        if (track.meshIndex != static_cast<int32_t>(meshIndex) || t >= track.targetCount) continue;
        // A cubic segment may overshoot its keys; its values still bound the keyed weights a writer drops.
        for (size_t k = 0; k < track.times.size() && k * track.targetCount + t < track.weights.size(); ++k) {
          weight = std::max(weight, std::fabs(track.weights[k * track.targetCount + t]));
        }
      }
    }
    bound += longest * weight;
  }
  return bound;
}

bool fitLeavesMesh(const Mesh& mesh, const WriteLimits& limits) {
  if (limits.skinnedMeshesOnly && !mesh.skinned() && mesh.attachBone >= 0) return false;                      // bindRiders()
  if (limits.maxInfluences > 0 && mesh.skinned() && mesh.maxInfluences() > limits.maxInfluences) return false;  // reduceInfluences()
  if (limits.maxVertices > 0 && mesh.positions.size() > limits.maxVertices) return false;                      // splitMesh()
  return limits.keepsMorphTargets || mesh.morphTargets.empty();                                                // dropMorphTargets()
}

Status fitToLimits(Rig& rig, const WriteLimits& limits, std::string_view format) {
  if (limits.maxJoints > 0) {
    const size_t joints = rig.skeleton.jointList().size();
    if (joints > limits.maxJoints) {
      return makeError(ErrorCode::Usage, fmt::format("the skeleton has {} joints; {} holds at most {}: nothing was written (remove bones in "
                                                     "the editor, or pick a format with a larger palette)",
                                                     joints, format, limits.maxJoints));
    }
  }
  if (limits.skinnedMeshesOnly) RP_CHECK(bindRiders(rig, format));
  std::vector<Mesh> meshes;
  std::vector<std::pair<std::string, size_t>> splits;  // mesh name, pieces
  for (Mesh& mesh : rig.meshes) {
    if (limits.maxInfluences > 0 && mesh.skinned() && mesh.maxInfluences() > limits.maxInfluences) {
      const auto [reduced, worst] = reduceInfluences(mesh, limits.maxInfluences);
      if (reduced > 0) {
        rig.provenance.warn("influences-reduced",
                            fmt::format("mesh '{}': {} vertices had more than {} influences; {} holds {}, so the smallest were dropped and the "
                                        "rest renormalised (largest weight dropped: {:.3f})",
                                        mesh.name, reduced, limits.maxInfluences, format, limits.maxInfluences, worst));
      }
    }
    if (limits.maxVertices > 0 && mesh.positions.size() > limits.maxVertices) {
      std::vector<Mesh> pieces = splitMesh(mesh, limits.maxVertices);
      rig.provenance.warn("mesh-split", fmt::format("mesh '{}': {} vertices; {} indexes at most {} per mesh, so it was split into {} meshes",
                                                    mesh.name, mesh.positions.size(), format, limits.maxVertices, pieces.size()));
      splits.emplace_back(mesh.name, pieces.size());
      for (Mesh& p : pieces) meshes.push_back(std::move(p));
      continue;
    }
    meshes.push_back(std::move(mesh));
  }
  rig.meshes = std::move(meshes);
  if (!splits.empty()) followSplitMeshes(rig, splits);
  if (!limits.keepsMorphTargets) dropMorphTargets(rig, format);
  for (Animation& anim : rig.animations) {
    if (limits.noEvents && !anim.events.empty()) {
      rig.provenance.warn("events-dropped", fmt::format("animation '{}': {} events dropped; {} stores none", anim.name, anim.events.size(), format));
      anim.events.clear();
    }
    if (limits.noScalarChannels && !anim.scalars.empty()) {
      rig.provenance.warn("scalar-channels-dropped",
                          fmt::format("animation '{}': {} scalar channels dropped; {} stores none", anim.name, anim.scalars.size(), format));
      anim.scalars.clear();
    }
  }
  if (limits.jointsOnJoints) foldHelperBones(rig, format);
  if (limits.tracksOnJointsOnly) foldNonJointTracks(rig, format);
  if (limits.asciiNames) asciiBoneNames(rig, format);
  if (limits.uniqueNames) uniqueBoneNames(rig, format);
  warnScaleInheritance(rig, limits.childrenInheritScale, format);
  if (limits.noScaleKeys) dropScaleKeys(rig, format);
  if (limits.hermiteKeys) keysToHermite(rig, format);
  if (limits.keyFrameRate > 0.0f) keysOnFrames(rig, limits.keyFrameRate, format);
  return Ok{};
}

}  // namespace rigport
