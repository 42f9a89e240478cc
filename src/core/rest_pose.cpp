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
// Which vertices of a skinned mesh can be a side of its posed box: those whose bind position lies
// within 2m of the bind box's side on some axis, or every vertex (`lowCut` +inf, `highCut` -inf) where
// no m is proven. m bounds how far posing can move a vertex, with its roundings (sideCuts() says
// why); a vertex bound farther in is posed strictly inside the box another vertex reaches, so it
// cannot change a side, and leaving it out leaves every side the same float, bit for bit (the first
// vertex in order to reach a side's value is still posed first).
struct SideCuts {
  __m128 lowCut = _mm_set1_ps(std::numeric_limits<float>::infinity());
  __m128 highCut = _mm_set1_ps(-std::numeric_limits<float>::infinity());
  bool mayBeSide(__m128 position) const {
    return (_mm_movemask_ps(_mm_or_ps(_mm_cmple_ps(position, lowCut), _mm_cmpge_ps(position, highCut))) & 0x7) != 0;
  }
};

// restPoseBounds()' loop over a skinned mesh, each vertex posedVertex() in SSE2 lanes and grown
// into the box in vertex order, bit for bit: glm's mat4 * vec4 is (c0·x + c1·y) + (c2·z + c3·w),
// each column a lane of 4 floats; the weight times it, the sum and the division by the weights are
// each lane's float operations; glm::min(lo, p) is (p < lo) ? p : lo, _mm_min_ps(p, lo) lane by lane
// (glm::max(hi, p) _mm_max_ps(p, hi)); a vertex with a component of all-ones exponent (not finite)
// is skipped, and so is one `cuts` shows cannot be a side. Posing is nearly all of a DFF's conversion
// to glTF without them (twice: stance, ground).
[[gnu::always_inline]] inline void skinnedBoundsLoop(const Mesh& mesh, const std::vector<glm::mat4>& skin, const SideCuts& cuts,
                                                     RestBounds& bounds, bool& any) {
  const glm::mat4* skins = skin.data();
  const size_t bones = skin.size();
  const Influence* influences = mesh.influences.data();
  const size_t influenceCount = mesh.influences.size();
  const uint32_t* offsets = mesh.influenceOffsets.data();
  __m128 lo = _mm_setr_ps(bounds.lo.x, bounds.lo.y, bounds.lo.z, 0.0f), hi = _mm_setr_ps(bounds.hi.x, bounds.hi.y, bounds.hi.z, 0.0f);
  bool grown = false;
  const size_t vertices = mesh.vertexCount();
  for (size_t v = 0; v < vertices; ++v) {
    const glm::vec3& position = mesh.positions[v];
    // 16 bytes from each vertex but the last, as growBox() loads them: lane 3 is looked at by nobody.
    if (!cuts.mayBeSide(v + 1 < vertices ? _mm_loadu_ps(&position.x) : _mm_setr_ps(position.x, position.y, position.z, 0.0f))) continue;
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
void skinnedBoundsSse2(const Mesh& mesh, const std::vector<glm::mat4>& skin, const SideCuts& cuts, RestBounds& bounds, bool& any) {
  skinnedBoundsLoop(mesh, skin, cuts, bounds, any);
}
#if RIGPORT_AVX2_LANES
RIGPORT_TARGET_AVX2 void skinnedBoundsAvx2(const Mesh& mesh, const std::vector<glm::mat4>& skin, const SideCuts& cuts,
                                           RestBounds& bounds, bool& any) {
  skinnedBoundsLoop(mesh, skin, cuts, bounds, any);
}
#endif

// Whether every weight of `mesh` is zero (of either sign) or within [2^-60, 2^32]: four at a time in
// lanes, on the bits (a positive float's bits order as its value; NaN and negatives fail).
bool weightsWithinProvenRange(const Mesh& mesh) {
  constexpr int32_t kLow = 0x21800000, kHigh = 0x4F800000;  // the bits of 2^-60 and 2^32
  const auto outside = [](__m128i bits) {
    const __m128i magnitude = _mm_and_si128(bits, _mm_set1_epi32(0x7FFFFFFF));
    const __m128i beyond = _mm_or_si128(_mm_cmpgt_epi32(_mm_set1_epi32(kLow), bits), _mm_cmpgt_epi32(bits, _mm_set1_epi32(kHigh)));
    return _mm_andnot_si128(_mm_cmpeq_epi32(magnitude, _mm_setzero_si128()), beyond);
  };
  const float* words = reinterpret_cast<const float*>(mesh.influences.data());  // {bone, weight} pairs
  const size_t n = mesh.influences.size();
  __m128i bad = _mm_setzero_si128();
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128 weights = _mm_shuffle_ps(_mm_loadu_ps(words + 2 * i), _mm_loadu_ps(words + 2 * i + 4), _MM_SHUFFLE(3, 1, 3, 1));
    bad = _mm_or_si128(bad, outside(_mm_castps_si128(weights)));
  }
  for (; i < n; ++i) bad = _mm_or_si128(bad, outside(_mm_castps_si128(_mm_set1_ps(mesh.influences[i].weight))));
  return _mm_movemask_epi8(bad) == 0;
}

// The cuts for `mesh` posed by `skin`. Where every skin matrix is within e of the identity (its
// three rows a point uses) and every weight is 0 or within weightsWithinProvenRange()'s range, a
// finite vertex's pose is a mean of points each within e·R of where it is bound (R >= |x| + |y| +
// |z| + 1 for every finite vertex; weights not negative make it a convex mean), computed
// in at most 2n + 6 roundings of a unit (2^-24) relative to (1 + e)·R, n the most influences a
// vertex has, plus underflow below 2^-60 (the smallest weight is 2^-60, each lost bit 2^-149 of it):
// m = (e + (4n + 16)·2^-24·(1 + e))·R + 2^-60 is twice that. So a vertex is posed within m of its
// bind position on each axis, and one bound above lo + 2m is posed above the posed box's lowest
// point, which is at most lo + m (lo the bind box's). The caps on R, n and the weights keep every
// sum finite. Elsewhere, no cut.
SideCuts sideCuts(const Mesh& mesh, const std::vector<glm::mat4>& skin) {
  double e = 0.0;
  for (const glm::mat4& m : skin) {
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 3; ++r) e = std::max(e, std::fabs(static_cast<double>(m[c][r]) - (c == r ? 1.0 : 0.0)));
  }
  const size_t n = mesh.maxInfluences();
  if (!(e <= 0.5) || n > (size_t{1} << 20) || !weightsWithinProvenRange(mesh)) return {};
  // The bind box of the finite positions: a vertex with a component not finite is posed not finite
  // (each lane of a point times a matrix takes every component) and left out of the posed box too.
  constexpr float kMax = std::numeric_limits<float>::max();
  glm::vec3 lo(kMax), hi(-kMax);
  lanes::growBox<true>(mesh.positions.data(), mesh.positions.size(), lo, hi);
  double r = 1.0;
  for (int k = 0; k < 3; ++k) r += std::max(std::fabs(static_cast<double>(lo[k])), std::fabs(static_cast<double>(hi[k])));
  if (r > 0x1p64) return {};
  const double m = (e + (4.0 * static_cast<double>(n) + 16.0) * 0x1p-24 * (1.0 + e)) * r + 0x1p-60;
  alignas(16) float lowCut[4], highCut[4];
  for (int k = 0; k < 3; ++k) {
    // Rounded outward, so a float cut keeps every vertex the exact one keeps.
    lowCut[k] = std::nextafter(static_cast<float>(lo[k] + 2.0 * m), std::numeric_limits<float>::infinity());
    highCut[k] = std::nextafter(static_cast<float>(hi[k] - 2.0 * m), -std::numeric_limits<float>::infinity());
  }
  lowCut[3] = -std::numeric_limits<float>::infinity();  // lane 3 is no axis
  highCut[3] = std::numeric_limits<float>::infinity();
  SideCuts cuts;
  cuts.lowCut = _mm_load_ps(lowCut);
  cuts.highCut = _mm_load_ps(highCut);
  return cuts;
}

void skinnedBounds(const Mesh& mesh, const std::vector<glm::mat4>& skin, RestBounds& bounds, bool& any) {
  const SideCuts cuts = sideCuts(mesh, skin);
#if RIGPORT_AVX2_LANES
  if (platform::cpuHasAvx2()) return skinnedBoundsAvx2(mesh, skin, cuts, bounds, any);
#endif
  skinnedBoundsSse2(mesh, skin, cuts, bounds, any);
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
