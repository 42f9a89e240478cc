#include "core/pose.hpp"

#include <algorithm>
#include <cstring>

#include "core/key_sample.hpp"
#include "core/vertex_lanes.hpp"
#include "platform/simd.hpp"

#if RIGPORT_SSE2_LANES
#include <emmintrin.h>
#endif
#if RIGPORT_AVX2_LANES
#include <immintrin.h>
#endif

namespace rigport {
namespace {

// The exporter's inverse bind matrix (export/gltf_skin.cpp): the bone's own, else the inverse of
// its world bind pose, with the last row made 0,0,0,1 (a file's padding there is not kept). A bone
// with neither, which the exporter refuses, is left at identity here so that it can still be compared.
glm::mat4 exportedInverseBind(const Bone& bone, const glm::mat4& worldBind) {
  const std::optional<glm::mat4> inverse = bone.inverseBind ? bone.inverseBind : inverseOfBindPose(worldBind);
  glm::mat4 ibm = inverse ? *inverse : glm::mat4(1.0f);
  ibm[0][3] = ibm[1][3] = ibm[2][3] = 0.0f;  // glm is column-major: [column][row]
  ibm[3][3] = 1.0f;
  return ibm;
}

// The first of the shallowest joints: where the exporter hangs vertices that have no weight.
size_t shallowestJoint(const Skeleton& skeleton) {
  const std::vector<uint32_t> joints = skeleton.jointList();
  std::vector<uint32_t> depth(skeleton.bones.size(), 0);
  for (size_t i = 0; i < depth.size(); ++i) {
    const int32_t p = skeleton.bones[i].parent;
    if (p >= 0 && static_cast<size_t>(p) < i) depth[i] = depth[static_cast<size_t>(p)] + 1;
  }
  size_t best = joints.empty() ? 0 : joints.front();
  for (uint32_t j : joints) {
    if (j < depth.size() && depth[j] < depth[best]) best = j;
  }
  return best;
}

}  // namespace

Pose::Pose(const Rig& rig) : rig_(rig), posed_(rig.skeleton) {
  const std::vector<glm::mat4> bind = rig.skeleton.worldBindMatrices();
  inverseBind_.resize(bind.size());
  for (size_t b = 0; b < bind.size(); ++b) inverseBind_[b] = exportedInverseBind(rig.skeleton.bones[b], bind[b]);
  rootJoint_ = shallowestJoint(rig.skeleton);
  setTime(nullptr, 0.0f);
}

void Pose::setTime(const Animation* clip, float t) {
  const std::vector<Bone>& rest = rig_.skeleton.bones;
  std::vector<Bone>& bones = posed_.bones;
  for (size_t b = 0; b < bones.size(); ++b) {
    bones[b].translation = rest[b].translation;
    bones[b].rotation = rest[b].rotation;
    bones[b].scale = rest[b].scale;
  }
  if (clip != nullptr) {
    for (const BoneTrack& track : clip->tracks) {
      if (track.bone < 0 || static_cast<size_t>(track.bone) >= bones.size()) continue;  // unbound: moves nothing
      Bone& bone = bones[static_cast<size_t>(track.bone)];
      const Bone& bind = rest[static_cast<size_t>(track.bone)];
      bone.translation = sampleKeys(track.translation, t, bind.translation);
      bone.rotation = sampleKeys(track.rotation, t, bind.rotation);
      bone.scale = sampleKeys(track.scale, t, bind.scale);
    }
  }
  morphWeights_.resize(rig_.meshes.size());
  for (size_t m = 0; m < rig_.meshes.size(); ++m) {
    const Mesh& mesh = rig_.meshes[m];
    morphWeights_[m].assign(mesh.morphTargets.size(), 0.0f);
    std::copy_n(mesh.morphWeights.begin(), std::min(mesh.morphWeights.size(), mesh.morphTargets.size()), morphWeights_[m].begin());
  }
  if (clip != nullptr) {
    for (const MorphWeightTrack& track : clip->morphWeights) {
      if (track.meshIndex < 0 || static_cast<size_t>(track.meshIndex) >= rig_.meshes.size()) continue;  // unbound: moves nothing
      const size_t m = static_cast<size_t>(track.meshIndex);
      if (track.targetCount != rig_.meshes[m].morphTargets.size()) continue;
      morphWeights_[m] = sampleMorphWeights(track, t, morphWeights_[m]);
    }
  }
  // By the skeleton's own rule (Skeleton::inheritScale): glTF's, or Spore's, whose children do not
  // inherit scale; the exporter's compensation nodes make a glTF client pose the latter alike.
  world_ = posed_.worldBindMatrices();
  skin_.resize(world_.size());
  for (size_t b = 0; b < world_.size(); ++b) skin_[b] = world_[b] * inverseBind_[b];
}

namespace {

// A skinned vertex at `p` (w = 1): the weighted sum of skin[bone] · p over its influences
// [first, last) that name a bone below `bones` with a positive weight, divided by their weight;
// where none has, skin[root] · p (the exporter's shallowest joint), or p itself without one.
inline glm::vec3 skinnedVertex(const glm::vec4& p, const Influence* first, const Influence* last, const glm::mat4* skin, size_t bones,
                               size_t root) {
  glm::dvec3 sum(0.0);
  double weight = 0.0;
#if RIGPORT_SSE2_LANES
  // The loop below in SSE2 lanes, bit for bit (Pose.SkinningLanesMatchTheScalarRule): glm's matrix
  // times vector is (c0·x + c1·y) + (c2·z + c3·w), each column a lane of 4 floats, here in the same
  // order; then the x, y and z of it widened, times the weight and summed in double lanes, as the
  // dvec3 sum does. Posing is most of the read-back check's time.
  const __m128 px = _mm_set1_ps(p.x), py = _mm_set1_ps(p.y), pz = _mm_set1_ps(p.z), pw = _mm_set1_ps(p.w);
  __m128d sumXy = _mm_setzero_pd(), sumZ = _mm_setzero_pd();
  for (const Influence* inf = first; inf != last; ++inf) {
    if (inf->bone >= bones || !(inf->weight > 0.0f)) continue;
    const __m128 r = lanes::timesPoint(skin[inf->bone], px, py, pz, pw);
    const __m128d w = _mm_set1_pd(static_cast<double>(inf->weight));
    sumXy = _mm_add_pd(sumXy, _mm_mul_pd(w, _mm_cvtps_pd(r)));
    sumZ = _mm_add_sd(sumZ, _mm_mul_sd(w, _mm_cvtps_pd(_mm_movehl_ps(r, r))));
    weight += inf->weight;
  }
  _mm_storel_pd(&sum.x, sumXy);
  _mm_storeh_pd(&sum.y, sumXy);
  _mm_store_sd(&sum.z, sumZ);
#else
  for (const Influence* inf = first; inf != last; ++inf) {
    if (inf->bone >= bones || !(inf->weight > 0.0f)) continue;
    sum += static_cast<double>(inf->weight) * glm::dvec3(glm::vec3(skin[inf->bone] * p));
    weight += inf->weight;
  }
#endif
  if (weight > 0.0) return glm::vec3(sum / weight);
  return root < bones ? glm::vec3(skin[root] * p) : glm::vec3(p);
}

#if RIGPORT_AVX2_LANES
// Where one skinned vertex goes, for each of the poses that skinnedVerticesAvx2() poses at once.
struct SkinnedSide {
  const glm::mat4* skin;
  size_t root;
  glm::vec3* out;
};

// One bone's skin matrices of two poses side by side, column c of the first then of the second in
// lanes[c], so that posing both sides loads each column pair as one 256-bit lane.
struct alignas(32) SkinColumns {
  float lanes[4][8];
};

// skinnedVertex() of `count` vertices at `positions`, their influences at offsets[i]..offsets[i + 1],
// in AVX lanes, for each of `Sides` poses of them (1, or 2 for verticesWith()): the same float lanes
// for the matrix times the vertex (with two sides, each side's columns in one half of a 256-bit lane
// and both summed at once), then x, y and z (and the unused w) widened into one lane of four doubles
// per side, weighted and summed there as the SSE2 code sums them in two, and divided at once. The
// influences are read once for every side. No FMA (the target is AVX2 alone): each lane rounds as
// the SSE2 code's (Pose.SkinningLanesMatchTheScalarRule, Pose.PosingTwoRigsAtOnceIsPosingEach).
// With two sides, `both` holds their skins per bone.
template <size_t Sides>
RIGPORT_TARGET_AVX2 void skinnedVerticesAvx2(const glm::vec3* positions, const uint32_t* offsets, const Influence* influences, size_t count,
                                             size_t bones, const SkinnedSide (&sides)[Sides], const SkinColumns* both = nullptr) {
  static_assert(Sides == 1 || Sides == 2);
  for (size_t i = 0; i < count; ++i) {
    const glm::vec4 p(positions[i], 1.0f);
    __m256d sum[Sides];
    for (__m256d& s : sum) s = _mm256_setzero_pd();
    double weight = 0.0;
    for (const Influence *inf = influences + offsets[i], *last = influences + offsets[i + 1]; inf != last; ++inf) {
      if (inf->bone >= bones || !(inf->weight > 0.0f)) continue;
      const __m256d w = _mm256_set1_pd(static_cast<double>(inf->weight));
      if constexpr (Sides == 1) {
        const __m128 r = lanes::timesPoint(sides[0].skin[inf->bone], _mm_set1_ps(p.x), _mm_set1_ps(p.y), _mm_set1_ps(p.z), _mm_set1_ps(p.w));
        sum[0] = _mm256_add_pd(sum[0], _mm256_mul_pd(w, _mm256_cvtps_pd(r)));
      } else {
        const auto& c = both[inf->bone].lanes;
        const __m256 r = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_load_ps(c[0]), _mm256_set1_ps(p.x)), _mm256_mul_ps(_mm256_load_ps(c[1]), _mm256_set1_ps(p.y))),
                                       _mm256_add_ps(_mm256_mul_ps(_mm256_load_ps(c[2]), _mm256_set1_ps(p.z)), _mm256_mul_ps(_mm256_load_ps(c[3]), _mm256_set1_ps(p.w))));
        sum[0] = _mm256_add_pd(sum[0], _mm256_mul_pd(w, _mm256_cvtps_pd(_mm256_castps256_ps128(r))));
        sum[1] = _mm256_add_pd(sum[1], _mm256_mul_pd(w, _mm256_cvtps_pd(_mm256_extractf128_ps(r, 1))));
      }
      weight += inf->weight;
    }
    for (size_t s = 0; s < Sides; ++s) {
      const SkinnedSide& side = sides[s];
      if (weight > 0.0) {
        alignas(16) float lanes[4];
        _mm_store_ps(lanes, _mm256_cvtpd_ps(_mm256_div_pd(sum[s], _mm256_set1_pd(weight))));
        side.out[i] = glm::vec3(lanes[0], lanes[1], lanes[2]);
      } else {
        side.out[i] = side.root < bones ? glm::vec3(side.skin[side.root] * p) : glm::vec3(p);
      }
    }
  }
}
#endif

}  // namespace

glm::vec3 Pose::vertex(size_t m, size_t v) const {
  const Mesh& mesh = rig_.meshes[m];
  glm::vec3 shaped = mesh.positions[v];
  for (size_t t = 0; t < mesh.morphTargets.size(); ++t) {
    const float w = morphWeights_[m][t];
    if (w != 0.0f && v < mesh.morphTargets[t].positionDeltas.size()) shaped += w * mesh.morphTargets[t].positionDeltas[v];
  }
  const glm::vec4 p(shaped, 1.0f);
  if (!mesh.skinned()) {
    const bool onBone = mesh.attachBone >= 0 && static_cast<size_t>(mesh.attachBone) < world_.size();
    return glm::vec3(onBone ? world_[static_cast<size_t>(mesh.attachBone)] * p : p);
  }
  const Influence* influences = mesh.influences.data();
  return skinnedVertex(p, influences + mesh.influenceOffsets[v], influences + mesh.influenceOffsets[v + 1], skin_.data(), skin_.size(), rootJoint_);
}

void Pose::vertices(size_t m, size_t first, size_t count, glm::vec3* out) const {
  if (count == 0) return;
  const Mesh& mesh = rig_.meshes[m];
  // A morph weight that is not 0 (NaN included) moves vertices, as in vertex(); so does riding a bone.
  const bool shaped = std::any_of(morphWeights_[m].begin(), morphWeights_[m].end(), [](float w) { return w != 0.0f; });
  if (shaped || !mesh.skinned()) {
    for (size_t i = 0; i < count; ++i) out[i] = vertex(m, first + i);
    return;
  }
  const glm::vec3* positions = mesh.positions.data() + first;
  const uint32_t* offsets = mesh.influenceOffsets.data() + first;
  const Influence* influences = mesh.influences.data();
  const glm::mat4* skin = skin_.data();
  const size_t bones = skin_.size();
#if RIGPORT_AVX2_LANES
  if (platform::cpuHasAvx2()) return skinnedVerticesAvx2(positions, offsets, influences, count, bones, {SkinnedSide{skin, rootJoint_, out}});
#endif
  for (size_t i = 0; i < count; ++i) {
    out[i] = skinnedVertex(glm::vec4(positions[i], 1.0f), influences + offsets[i], influences + offsets[i + 1], skin, bones, rootJoint_);
  }
}

void Pose::verticesWith(const Pose& other, size_t m, size_t first, size_t count, glm::vec3* out, glm::vec3* otherOut) const {
#if RIGPORT_AVX2_LANES
  if (count > 0 && platform::cpuHasAvx2() && sameSkinning(other, m, first, count)) {
    std::vector<SkinColumns> both(skin_.size());
    for (size_t b = 0; b < both.size(); ++b) {
      for (int c = 0; c < 4; ++c) {
        std::memcpy(&both[b].lanes[c][0], &skin_[b][c][0], 4 * sizeof(float));
        std::memcpy(&both[b].lanes[c][4], &other.skin_[b][c][0], 4 * sizeof(float));
      }
    }
    const Mesh& mesh = rig_.meshes[m];
    return skinnedVerticesAvx2(mesh.positions.data() + first, mesh.influenceOffsets.data() + first, mesh.influences.data(), count, skin_.size(),
                               {SkinnedSide{skin_.data(), rootJoint_, out}, SkinnedSide{other.skin_.data(), other.rootJoint_, otherOut}}, both.data());
  }
#endif
  vertices(m, first, count, out);
  other.vertices(m, first, count, otherOut);
}

bool Pose::sameSkinning(const Pose& other, size_t m, size_t first, size_t count) const {
  const Mesh& a = rig_.meshes[m];
  const Mesh& b = other.rig_.meshes[m];
  const auto unshaped = [](const std::vector<float>& weights) { return std::all_of(weights.begin(), weights.end(), [](float w) { return w == 0.0f; }); };
  if (!a.skinned() || !b.skinned() || !unshaped(morphWeights_[m]) || !unshaped(other.morphWeights_[m]) || skin_.size() != other.skin_.size()) return false;
  // Bytes, not values: the same bytes pose alike whatever they hold (NaN, -0).
  const auto sameBytes = [](const auto* x, const auto* y, size_t n) { return std::memcmp(x, y, n * sizeof *x) == 0; };
  const uint32_t* offsets = a.influenceOffsets.data() + first;
  return sameBytes(a.positions.data() + first, b.positions.data() + first, count) &&
         sameBytes(offsets, b.influenceOffsets.data() + first, count + 1) &&
         sameBytes(a.influences.data() + offsets[0], b.influences.data() + offsets[0], offsets[count] - offsets[0]);
}

}  // namespace rigport
