#include "core/rest_pose.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "core/key_sample.hpp"
#include "core/track_space.hpp"
#include "core/vertex_lanes.hpp"
#include "platform/simd.hpp"

#if RIGPORT_SSE2_LANES
#include <emmintrin.h>
#endif

namespace rigport {
namespace {

bool sameWithoutCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool finite(const glm::vec3& p) { return std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z); }

// Joint world × inverse bind of every bone: where the rest pose takes a point of the bind space.
// A bone whose bind pose has no inverse moves nothing (identity).
std::vector<glm::mat4> skinMatrices(const Skeleton& skeleton, const std::vector<glm::mat4>& world) {
  std::vector<glm::mat4> skin(world.size(), glm::mat4(1.0f));
  for (size_t b = 0; b < world.size(); ++b) {
    const Bone& bone = skeleton.bones[b];
    if (const std::optional<glm::mat4> ibm = bone.inverseBind ? bone.inverseBind : inverseOfBindPose(world[b])) skin[b] = world[b] * *ibm;
  }
  return skin;
}

// Vertex v as the rest pose shows it (the exporter's skinning: weights over their sum).
glm::vec3 posedVertex(const Mesh& mesh, size_t v, const std::vector<glm::mat4>& skin, const std::vector<glm::mat4>& world) {
  const glm::vec4 p(mesh.positions[v], 1.0f);
  if (!mesh.skinned()) {
    const size_t bone = static_cast<size_t>(mesh.attachBone);
    return mesh.attachBone >= 0 && bone < world.size() ? glm::vec3(world[bone] * p) : mesh.positions[v];
  }
  glm::vec3 sum(0.0f);
  float weights = 0.0f;
  for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1] && i < mesh.influences.size(); ++i) {
    const Influence& inf = mesh.influences[i];
    if (inf.bone >= skin.size()) continue;
    sum += inf.weight * glm::vec3(skin[inf.bone] * p);
    weights += inf.weight;
  }
  return weights > 0.0f ? sum / weights : mesh.positions[v];
}

#if RIGPORT_SSE2_LANES
// restPoseBounds()' loop over a skinned mesh, each vertex posedVertex() in SSE2 lanes and grown
// into the box in vertex order, bit for bit: glm's mat4 * vec4 is (c0·x + c1·y) + (c2·z + c3·w),
// each column a lane of 4 floats; the weight times it, the sum and the division by the weights are
// each lane's float operations; glm::min(lo, p) is (p < lo) ? p : lo, _mm_min_ps(p, lo) lane by lane
// (glm::max(hi, p) _mm_max_ps(p, hi)); a vertex with a component of all-ones exponent (not finite)
// is skipped. Posing is nearly all of a DFF's conversion to glTF without it (twice: stance, ground).
[[gnu::always_inline]] inline void skinnedBoundsLoop(const Mesh& mesh, const std::vector<glm::mat4>& skin, RestBounds& bounds, bool& any) {
  const glm::mat4* skins = skin.data();
  const size_t bones = skin.size();
  const Influence* influences = mesh.influences.data();
  const size_t influenceCount = mesh.influences.size();
  const uint32_t* offsets = mesh.influenceOffsets.data();
  __m128 lo = _mm_setr_ps(bounds.lo.x, bounds.lo.y, bounds.lo.z, 0.0f), hi = _mm_setr_ps(bounds.hi.x, bounds.hi.y, bounds.hi.z, 0.0f);
  bool grown = false;
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    const glm::vec3& position = mesh.positions[v];
    const __m128 px = _mm_set1_ps(position.x), py = _mm_set1_ps(position.y), pz = _mm_set1_ps(position.z), pw = _mm_set1_ps(1.0f);
    __m128 sum = _mm_setzero_ps();
    float weights = 0.0f;
    const size_t end = std::min<size_t>(offsets[v + 1], influenceCount);
    for (size_t i = offsets[v]; i < end; ++i) {
      const Influence& inf = influences[i];
      if (inf.bone >= bones) continue;
      const __m128 r = lanes::timesPoint(skins[inf.bone], px, py, pz, pw);
      sum = _mm_add_ps(sum, _mm_mul_ps(_mm_set1_ps(inf.weight), r));
      weights += inf.weight;
    }
    const __m128 p = weights > 0.0f ? _mm_div_ps(sum, _mm_set1_ps(weights)) : _mm_setr_ps(position.x, position.y, position.z, 0.0f);
    if (lanes::anyXyzNotFinite(p)) continue;
    lo = _mm_min_ps(p, lo);
    hi = _mm_max_ps(p, hi);
    grown = true;
  }
  if (!grown) return;
  alignas(16) float out[2][4];
  _mm_store_ps(out[0], lo);
  _mm_store_ps(out[1], hi);
  bounds.lo = glm::vec3(out[0][0], out[0][1], out[0][2]);
  bounds.hi = glm::vec3(out[1][0], out[1][1], out[1][2]);
  any = true;
}

// The loop above for SSE2 (the baseline) and for AVX2 where the CPU has it: the same lane operations,
// VEX-encoded (loads folded into the multiplications; no FMA, so each rounds as before).
void skinnedBoundsSse2(const Mesh& mesh, const std::vector<glm::mat4>& skin, RestBounds& bounds, bool& any) {
  skinnedBoundsLoop(mesh, skin, bounds, any);
}
#if RIGPORT_AVX2_LANES
RIGPORT_TARGET_AVX2 void skinnedBoundsAvx2(const Mesh& mesh, const std::vector<glm::mat4>& skin, RestBounds& bounds, bool& any) {
  skinnedBoundsLoop(mesh, skin, bounds, any);
}
#endif

void skinnedBounds(const Mesh& mesh, const std::vector<glm::mat4>& skin, RestBounds& bounds, bool& any) {
#if RIGPORT_AVX2_LANES
  if (platform::cpuHasAvx2()) return skinnedBoundsAvx2(mesh, skin, bounds, any);
#endif
  skinnedBoundsSse2(mesh, skin, bounds, any);
}
#endif

}  // namespace

std::optional<size_t> findClip(const Rig& rig, std::string_view name) {
  for (size_t a = 0; a < rig.animations.size(); ++a) {
    if (sameWithoutCase(rig.animations[a].name, name)) return a;
  }
  return std::nullopt;
}

void restPoseFromClip(Rig& rig, size_t clip, float seconds) {
  Skeleton& skeleton = rig.skeleton;
  const std::vector<glm::mat4> world = skeleton.worldBindMatrices();
  for (uint32_t j : skeleton.jointList()) {
    Bone& bone = skeleton.bones[j];
    if (!bone.inverseBind) bone.inverseBind = inverseOfBindPose(world[j]);
  }
  // Tracks relative to the bind pose mean the old one: every clip is made absolute before it moves.
  for (Animation& anim : rig.animations) makeAbsolute(anim, skeleton);
  for (const BoneTrack& track : rig.animations[clip].tracks) {
    if (track.bone < 0 || static_cast<size_t>(track.bone) >= skeleton.bones.size()) continue;
    Bone& bone = skeleton.bones[static_cast<size_t>(track.bone)];
    bone.translation = sampleKeys(track.translation, seconds, bone.translation);
    bone.rotation = sampleKeys(track.rotation, seconds, bone.rotation);
    bone.scale = sampleKeys(track.scale, seconds, bone.scale);
  }
  if (!rig.extras.is_object()) rig.extras = nlohmann::json::object();
  rig.extras["restPose"] = {{"clip", rig.animations[clip].name}, {"seconds", seconds}};
}

std::optional<RestBounds> restPoseBounds(const Rig& rig) {
  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  const std::vector<glm::mat4> skin = skinMatrices(rig.skeleton, world);
  constexpr float kMax = std::numeric_limits<float>::max();
  RestBounds bounds{glm::vec3(kMax), glm::vec3(-kMax)};
  bool any = false;
  auto grow = [&](const glm::vec3& p) {
    if (!finite(p)) return;
    bounds.lo = glm::min(bounds.lo, p);
    bounds.hi = glm::max(bounds.hi, p);
    any = true;
  };
  for (const Mesh& mesh : rig.meshes) {
#if RIGPORT_SSE2_LANES
    if (mesh.skinned()) {
      skinnedBounds(mesh, skin, bounds, any);
      continue;
    }
#endif
    for (size_t v = 0; v < mesh.vertexCount(); ++v) grow(posedVertex(mesh, v, skin, world));
  }
  if (!any) {
    for (const glm::mat4& w : world) grow(glm::vec3(w[3]));
  }
  if (!any) return std::nullopt;
  return bounds;
}

Stance stanceOf(const RestBounds& bounds, const AxisSystem& axes) {
  const glm::vec3 size = bounds.hi - bounds.lo;
  if (axes.up == AxisSystem::Up::Z) return Stance{size.z, std::max(size.x, size.y)};
  return Stance{size.y, std::max(size.x, size.z)};
}

}  // namespace rigport
