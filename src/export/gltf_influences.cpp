#include "export/gltf_influences.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "platform/simd.hpp"

#if RIGPORT_SSE2_LANES
#include <emmintrin.h>
#include <xmmintrin.h>
#endif
#if RIGPORT_AVX2_LANES
#include <immintrin.h>
#endif

namespace rigport::gltf {

float validatorWeightSum(const VertexInfluences& v, size_t sets) {
  float sum = 0.0f;
  for (size_t c = 0; c < 4; ++c) {
    for (size_t s = 0; s < sets; ++s) {
      const float w = v.weight[s * 4 + c];
      if (w != 0.0f) sum = sum + w;  // float + float rounds to float, as the validator's doubleToSingle does
    }
  }
  return sum;
}

namespace {

using Merged = InfluenceNormaliser::Merged;

// Rounding each weight to float leaves the float32 sum (`sum()`, the validator's) a few ulps off;
// moving the difference onto the largest weight makes it exact. Bounded: were it to oscillate by
// an ulp, that is still far inside the validator's 2e-7 per weight.
template <class Sum>
void makeSumExact(float& largest, Sum sum) {
  for (int round = 0; round < 8; ++round) {
    const float s = sum();
    if (s == 1.0f) break;
    largest = static_cast<float>(static_cast<double>(largest) + (1.0 - static_cast<double>(s)));
  }
}

// Largest first; equal weights by joint so the output does not depend on the source order.
bool before(const Merged& a, const Merged& b) {
  return a.weight != b.weight ? a.weight > b.weight : a.joint < b.joint;
}

}  // namespace

InfluenceNormaliser::Outcome InfluenceNormaliser::normalise(const Influence* begin, const Influence* end,
                                                            VertexInfluences& out, size_t& badInfluence,
                                                            bool& truncated) {
  out = VertexInfluences{};
  truncated = false;
  // A vertex of at most kMaxSlots influences (every vertex of every format but glTF input with
  // more) is merged in a local array, else in the reused vector.
  Merged local[kMaxSlots];  // trivial: not zeroed per vertex
  const bool small = end - begin <= static_cast<std::ptrdiff_t>(kMaxSlots);
  if (!small) merged_.clear();
  Merged* merged = small ? local : nullptr;
  size_t count = 0;
  for (const Influence* it = begin; it != end; ++it) {
    const int32_t joint = jointOf(it->bone);
    if (joint < 0) {
      badInfluence = static_cast<size_t>(it - begin);
      return Outcome::BoneNotAJoint;
    }
    if (it->weight == 0.0f) continue;
    Merged* list = small ? local : merged_.data();
    size_t k = 0;
    while (k < count && list[k].joint != static_cast<uint32_t>(joint)) ++k;
    if (k < count) {
      list[k].weight += it->weight;
    } else if (small) {
      local[count++] = Merged{static_cast<uint32_t>(joint), it->weight};
    } else {
      merged_.push_back(Merged{static_cast<uint32_t>(joint), it->weight});
      ++count;
    }
  }
  if (!small) merged = merged_.data();
  if (count == 0) {
    out.used = 1;
    out.joint[0] = rootJoint_;
    out.weight[0] = 1.0f;
    return Outcome::NoInfluences;
  }
  // Joints are distinct after merging, so the order is total and any sort gives the same one.
  if (small) {
    for (size_t i = 1; i < count; ++i) {
      const Merged m = merged[i];
      size_t j = i;
      for (; j > 0 && before(m, merged[j - 1]); --j) merged[j] = merged[j - 1];
      merged[j] = m;
    }
  } else {
    std::sort(merged, merged + count, before);
  }
  const size_t slots = sets_ * 4;
  truncated = count > slots;
  const size_t n = std::min(count, slots);
  double total = 0.0;
  for (size_t i = 0; i < n; ++i) total += merged[i].weight;
  // One division a vertex: the reciprocal's rounding moves a weight's double by an ulp at most,
  // which its rounding to float absorbs but for a tie once in about 2^29 weights, and the sum is
  // made exact below whatever the weights.
  const double inverse = 1.0 / total;
  uint32_t used = 0;  // a local, not out.used: a counter in memory chained every slot's store
  for (; used < n; ++used) {
    const float w = static_cast<float>(merged[used].weight * inverse);
    if (w == 0.0f) break;  // sorted: everything after is zero as well, and zero slots keep joint 0
    out.joint[used] = merged[used].joint;
    out.weight[used] = w;
  }
  out.used = used;
  makeSumExact(out.weight[0], [&] { return validatorWeightSum(out, sets_); });
  return Outcome::Ok;
}

namespace {

struct Slot {
  uint32_t joint;
  float weight;
};

// before() on slots: largest weight first, equal weights by joint. Written with selects so the
// compiler can make the exchange branch-free: the order of four random weights is unpredictable.
void order(Slot& a, Slot& b) {
  const bool swap = b.weight != a.weight ? b.weight > a.weight : b.joint < a.joint;
  const Slot first = swap ? b : a;
  const Slot second = swap ? a : b;
  a = first;
  b = second;
}

}  // namespace

bool InfluenceNormaliser::normaliseFour(const Influence* begin, const Influence* end, uint32_t* joint,
                                        float* weight) const {
  const size_t count = static_cast<size_t>(end - begin);
  if (sets_ != 1 || count > 4) return false;
  Slot s[4];
  bool usual = true;
  for (size_t i = 0; i < 4; ++i) {
    if (i < count) {
      const Influence in = begin[i];
      const int32_t j = jointOf(in.bone);
      // Also false for NaN; -0 passes and, like normalise(), counts as no weight.
      usual &= (j >= 0) & (in.weight >= 0.0f) & (in.weight <= std::numeric_limits<float>::max());
      s[i] = Slot{static_cast<uint32_t>(j), in.weight};
    } else {
      s[i] = Slot{0, 0.0f};
    }
  }
  // normalise() would merge a joint named twice with weight; two zero weights are dropped instead.
  for (size_t a = 0; a < 4; ++a) {
    for (size_t b = a + 1; b < 4; ++b) usual &= !(s[a].joint == s[b].joint && s[a].weight != 0.0f && s[b].weight != 0.0f);
  }
  if (!usual || (s[0].weight == 0.0f && s[1].weight == 0.0f && s[2].weight == 0.0f && s[3].weight == 0.0f)) return false;
  // A sorting network: zero weights end up last, after every non-zero one, as if dropped.
  order(s[0], s[1]);
  order(s[2], s[3]);
  order(s[0], s[2]);
  order(s[1], s[3]);
  order(s[1], s[2]);
  // normalise() sums only the non-zero weights, in this order, from 0.0; adding the trailing zeros
  // (x + 0.0 == x for x > 0) and starting from the first weight give the same double.
  const double total = ((static_cast<double>(s[0].weight) + s[1].weight) + s[2].weight) + s[3].weight;
  const double inverse = 1.0 / total;
  float w[4];
  for (size_t i = 0; i < 4; ++i) {
    const float f = static_cast<float>(s[i].weight * inverse);
    // A weight that rounds to zero ends the used slots there (the rest, smaller, round to zero
    // too): its slot keeps joint 0 and weight +0.
    joint[i] = f != 0.0f ? s[i].joint : 0;
    w[i] = f != 0.0f ? f : 0.0f;
  }
  // The validator's sum of one set (validatorWeightSum), zeros included since they add nothing.
  makeSumExact(w[0], [&] { return ((w[0] + w[1]) + w[2]) + w[3]; });
  std::memcpy(weight, w, sizeof w);
  return true;
}

#if RIGPORT_SSE2_LANES

namespace {

// SSE2, the x86-64 baseline: every lane rounds as the scalar code does (IEEE single and double,
// no fused operations). A comparison gives a lane mask, all ones or zero.
__m128i load(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
__m128 select(__m128 mask, __m128 a, __m128 b) { return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b)); }
__m128i select(__m128 mask, __m128i a, __m128i b) {
  return _mm_castps_si128(select(mask, _mm_castsi128_ps(a), _mm_castsi128_ps(b)));
}
__m128 mask(__m128i m) { return _mm_castsi128_ps(m); }
__m128d low(__m128 f) { return _mm_cvtps_pd(f); }
__m128d high(__m128 f) { return _mm_cvtps_pd(_mm_movehl_ps(f, f)); }
__m128 join(__m128d lo, __m128d hi) { return _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi)); }

// Rows (one vertex's four slots) to columns (one slot of four vertices), and back.
void transpose(__m128 (&r)[4]) { _MM_TRANSPOSE4_PS(r[0], r[1], r[2], r[3]); }
void transpose(__m128i (&r)[4]) {
  __m128 f[4] = {_mm_castsi128_ps(r[0]), _mm_castsi128_ps(r[1]), _mm_castsi128_ps(r[2]), _mm_castsi128_ps(r[3])};
  transpose(f);
  for (int k = 0; k < 4; ++k) r[k] = _mm_castps_si128(f[k]);
}

}  // namespace

unsigned InfluenceNormaliser::normaliseFourByFour(const Influence* inf, const uint32_t* off, uint32_t* joint,
                                                  float* weight) const {
  static_assert(sizeof(Influence) == 8, "an influence is a bone word and a weight word");
  if (sets_ != 1) return 0;
  // Joints are looked up one by one (a joint list in HAnim order is a permutation of the bones);
  // a bone outside the map becomes a negative joint, as jointOf() gives.
  __m128i J[4];  // rows, then, transposed, slot c of the four vertices
  __m128 w[4];
  for (int k = 0; k < 4; ++k) {
    const Influence* row = inf + off[k];
    // Built from registers: four scalar stores read back as one vector would stall on store forwarding.
    J[k] = _mm_set_epi32(jointOf(row[3].bone), jointOf(row[2].bone), jointOf(row[1].bone), jointOf(row[0].bone));
    const __m128 a = _mm_castsi128_ps(load(row));  // bone, weight, bone, weight
    const __m128 b = _mm_castsi128_ps(load(row + 2));
    w[k] = _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
  }
  transpose(J);
  transpose(w);
  const __m128 zero = _mm_setzero_ps();
  // 0 <= count <= 4 as signed words is count <= 4 as the unsigned difference of two offsets.
  const __m128i count = _mm_sub_epi32(load(off + 1), load(off));
  __m128 usual = mask(_mm_andnot_si128(_mm_cmplt_epi32(count, _mm_setzero_si128()), _mm_cmplt_epi32(count, _mm_set1_epi32(5))));
  for (int c = 0; c < 4; ++c) {
    // Slots past the vertex's count are {joint 0, weight 0}, as in normaliseFour().
    const __m128 present = mask(_mm_cmpgt_epi32(count, _mm_set1_epi32(c)));
    J[c] = select(present, J[c], _mm_setzero_si128());
    w[c] = select(present, w[c], zero);
    const __m128 fine = _mm_and_ps(mask(_mm_cmpgt_epi32(J[c], _mm_set1_epi32(-1))),
                                   _mm_and_ps(_mm_cmpge_ps(w[c], zero), _mm_cmple_ps(w[c], _mm_set1_ps(std::numeric_limits<float>::max()))));
    usual = _mm_and_ps(usual, _mm_or_ps(_mm_andnot_ps(present, _mm_castsi128_ps(_mm_set1_epi32(-1))), fine));
  }
  // normaliseFour()'s checks: no joint twice with weight, some weight non-zero.
  __m128 any = zero;
  for (int a = 0; a < 4; ++a) {
    any = _mm_or_ps(any, _mm_cmpneq_ps(w[a], zero));
    for (int b = a + 1; b < 4; ++b) {
      usual = _mm_andnot_ps(_mm_and_ps(mask(_mm_cmpeq_epi32(J[a], J[b])), _mm_and_ps(_mm_cmpneq_ps(w[a], zero), _mm_cmpneq_ps(w[b], zero))), usual);
    }
  }
  usual = _mm_and_ps(usual, any);
  const unsigned taken = static_cast<unsigned>(_mm_movemask_ps(usual));
  if (taken == 0) return 0;
  // order() lane by lane: largest weight first, equal weights by joint (joints of the lanes taken
  // are below 65536, so a signed comparison orders them).
  auto order = [&](int a, int b) {
    const __m128 swap = select(_mm_cmpneq_ps(w[b], w[a]), _mm_cmpgt_ps(w[b], w[a]), mask(_mm_cmplt_epi32(J[b], J[a])));
    const __m128 wa = select(swap, w[b], w[a]);
    const __m128i ja = select(swap, J[b], J[a]);
    w[b] = select(swap, w[a], w[b]);
    J[b] = select(swap, J[a], J[b]);
    w[a] = wa;
    J[a] = ja;
  };
  order(0, 1);
  order(2, 3);
  order(0, 2);
  order(1, 3);
  order(1, 2);
  const __m128d one = _mm_set1_pd(1.0);
  const __m128d inverseLow = _mm_div_pd(one, _mm_add_pd(_mm_add_pd(_mm_add_pd(low(w[0]), low(w[1])), low(w[2])), low(w[3])));
  const __m128d inverseHigh = _mm_div_pd(one, _mm_add_pd(_mm_add_pd(_mm_add_pd(high(w[0]), high(w[1])), high(w[2])), high(w[3])));
  for (int c = 0; c < 4; ++c) {
    const __m128 f = join(_mm_mul_pd(low(w[c]), inverseLow), _mm_mul_pd(high(w[c]), inverseHigh));
    const __m128 kept = _mm_cmpneq_ps(f, zero);
    J[c] = select(kept, J[c], _mm_setzero_si128());
    w[c] = select(kept, f, zero);
  }
  // makeSumExact on the lanes taken; a lane whose sum is exact is left alone from then on, as
  // the scalar loop stops there. The fix is a function of the largest weight alone (the others
  // stay), so once a lane's weight comes back to an earlier value it repeats itself until the
  // eighth fix, where the scalar loop stops: a lane whose third fix gives back its first, second
  // or third value (a cycle of 3, 2 or 1) is known to end on the third, x[2], and leaves the loop
  // there. With random weights about one vertex in nine cycles so, and went round eight times.
  __m128 x[3];
  __m128 open = usual;
  for (int round = 0; round < 8; ++round) {
    const __m128 sum = _mm_add_ps(_mm_add_ps(_mm_add_ps(w[0], w[1]), w[2]), w[3]);
    __m128 inexact = _mm_and_ps(_mm_cmpneq_ps(sum, _mm_set1_ps(1.0f)), open);
    if (round == 3) {
      auto same = [&](__m128 a) { return mask(_mm_cmpeq_epi32(_mm_castps_si128(w[0]), _mm_castps_si128(a))); };
      const __m128 cycling = _mm_and_ps(inexact, _mm_or_ps(_mm_or_ps(same(x[0]), same(x[1])), same(x[2])));
      w[0] = select(cycling, x[2], w[0]);
      open = _mm_andnot_ps(cycling, open);
      inexact = _mm_andnot_ps(cycling, inexact);
    }
    if (_mm_movemask_ps(inexact) == 0) break;
    if (round < 3) x[round] = w[0];
    const __m128 fixed = join(_mm_add_pd(low(w[0]), _mm_sub_pd(one, low(sum))), _mm_add_pd(high(w[0]), _mm_sub_pd(one, high(sum))));
    w[0] = select(inexact, fixed, w[0]);
  }
  transpose(J);
  transpose(w);
  for (int k = 0; k < 4; ++k) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(joint + 4 * k), J[k]);
    _mm_storeu_ps(weight + 4 * k, w[k]);
  }
  return taken;
}

#else

// Without SSE2 every vertex takes the one-at-a-time path.
unsigned InfluenceNormaliser::normaliseFourByFour(const Influence*, const uint32_t*, uint32_t*, float*) const { return 0; }

#endif

#if RIGPORT_AVX2_LANES

bool InfluenceNormaliser::eightLanes() { return platform::cpuHasAvx2(); }

namespace {

// AVX2 without FMA: the compiler can fuse nothing, so every lane rounds as the SSE2 code does.
#define RIGPORT_AVX2 RIGPORT_TARGET_AVX2

RIGPORT_AVX2 __m256 select8(__m256 mask, __m256 a, __m256 b) { return _mm256_blendv_ps(b, a, mask); }
RIGPORT_AVX2 __m256i select8(__m256 mask, __m256i a, __m256i b) {
  return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(b), _mm256_castsi256_ps(a), mask));
}
RIGPORT_AVX2 __m256 mask8(__m256i m) { return _mm256_castsi256_ps(m); }
RIGPORT_AVX2 __m256d low8(__m256 f) { return _mm256_cvtps_pd(_mm256_castps256_ps128(f)); }
RIGPORT_AVX2 __m256d high8(__m256 f) { return _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)); }
RIGPORT_AVX2 __m256 join8(__m256d lo, __m256d hi) {
  return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm256_cvtpd_ps(lo)), _mm256_cvtpd_ps(hi), 1);
}

// Columns (slot c of eight vertices) to rows (vertex k's four slots), stored at out[4k..4k+3].
RIGPORT_AVX2 void storeRows(__m256 c0, __m256 c1, __m256 c2, __m256 c3, float* out) {
  const __m256 t0 = _mm256_unpacklo_ps(c0, c1), t1 = _mm256_unpackhi_ps(c0, c1);
  const __m256 t2 = _mm256_unpacklo_ps(c2, c3), t3 = _mm256_unpackhi_ps(c2, c3);
  const __m256 r0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));  // vertices 0 | 4
  const __m256 r1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));  // 1 | 5
  const __m256 r2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));  // 2 | 6
  const __m256 r3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));  // 3 | 7
  _mm256_storeu_ps(out, _mm256_permute2f128_ps(r0, r1, 0x20));
  _mm256_storeu_ps(out + 8, _mm256_permute2f128_ps(r2, r3, 0x20));
  _mm256_storeu_ps(out + 16, _mm256_permute2f128_ps(r0, r1, 0x31));
  _mm256_storeu_ps(out + 24, _mm256_permute2f128_ps(r2, r3, 0x31));
}

// Bitwise equality of two lanes' words.
RIGPORT_AVX2 __m256 same8(__m256 a, __m256 b) { return mask8(_mm256_cmpeq_epi32(_mm256_castps_si256(a), _mm256_castps_si256(b))); }

// order() lane by lane (normaliseFourByFour's, in eight lanes). A function, not a lambda: a
// lambda would not inherit the target attribute.
RIGPORT_AVX2 void order8(__m256 (&w)[4], __m256i (&J)[4], int a, int b) {
  const __m256 swap = select8(_mm256_cmp_ps(w[b], w[a], _CMP_NEQ_UQ), _mm256_cmp_ps(w[b], w[a], _CMP_GT_OQ),
                              mask8(_mm256_cmpgt_epi32(J[a], J[b])));
  const __m256 wa = select8(swap, w[b], w[a]);
  const __m256i ja = select8(swap, J[b], J[a]);
  w[b] = select8(swap, w[a], w[b]);
  J[b] = select8(swap, J[a], J[b]);
  w[a] = wa;
  J[a] = ja;
}

}  // namespace

RIGPORT_AVX2 unsigned InfluenceNormaliser::normaliseEightByEight(const Influence* inf, const uint32_t* off, uint32_t* joint,
                                                                 float* weight) const {
  if (sets_ != 1 || jointOfBone_.size() > static_cast<size_t>(INT32_MAX)) return 0;
  // Slot c of each vertex is gathered straight into column c: the influence words are bone,
  // weight, bone, weight..., so vertex k's slot c is word 2 * (off[k] + c) (+1 for the weight).
  const __m256i first = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(off));
  const __m256i next = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(off + 1));
  const int* words = reinterpret_cast<const int*>(inf);
  const float* floats = reinterpret_cast<const float*>(inf);
  const __m256i jointCount = _mm256_set1_epi32(static_cast<int32_t>(jointOfBone_.size()));
  const __m256i minusOne = _mm256_set1_epi32(-1);
  const __m256i count = _mm256_sub_epi32(next, first);
  __m256i bones[4];
  __m256 w[4];
  if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(count, _mm256_set1_epi32(4))) == -1) {
    // Every vertex has four influences, so the 32 lie one after another from off[0]: eight loads
    // (a vertex's bone, weight, bone, weight... each) turned into columns, the words the gathers
    // below would fetch, without them (a gather is a dozen cycles or more on AMD's cores).
    const float* row = floats + 2 * static_cast<size_t>(off[0]);
    __m256 r[8], t[8], u[8];
    for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(row + 8 * k);
    for (int k = 0; k < 8; k += 2) {
      t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
      t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
      u[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
      u[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
      u[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
      u[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    // Column j (word j of every vertex) is the low halves of u[j % 4] and u[4 + j % 4] for j < 4,
    // their high halves for j >= 4.
    for (int c = 0; c < 4; ++c) {
      const int j = 2 * c;  // bone c is word 2c, its weight word 2c + 1
      const int lowOrHigh = j < 4 ? 0x20 : 0x31;
      const __m256 boneColumn = lowOrHigh == 0x20 ? _mm256_permute2f128_ps(u[j % 4], u[4 + j % 4], 0x20)
                                                  : _mm256_permute2f128_ps(u[j % 4], u[4 + j % 4], 0x31);
      const __m256 weightColumn = lowOrHigh == 0x20 ? _mm256_permute2f128_ps(u[(j + 1) % 4], u[4 + (j + 1) % 4], 0x20)
                                                    : _mm256_permute2f128_ps(u[(j + 1) % 4], u[4 + (j + 1) % 4], 0x31);
      bones[c] = _mm256_castps_si256(boneColumn);
      w[c] = weightColumn;
    }
  } else {
    for (int c = 0; c < 4; ++c) {
      const __m256i word = _mm256_slli_epi32(_mm256_add_epi32(first, _mm256_set1_epi32(c)), 1);
      bones[c] = _mm256_i32gather_epi32(words, word, 4);
      w[c] = _mm256_i32gather_ps(floats + 1, word, 4);
    }
  }
  __m256i J[4];
  for (int c = 0; c < 4; ++c) {
    const __m256i bone = bones[c];
    // jointOf(): a bone past the map is -1. Bones of 2^31 and more are negative here, so they
    // are out of range too. Where every bone is its own joint, the map is not looked up.
    const __m256i known = _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_setzero_si256(), bone), _mm256_cmpgt_epi32(jointCount, bone));
    J[c] = identity_ ? _mm256_blendv_epi8(minusOne, bone, known) : _mm256_mask_i32gather_epi32(minusOne, jointOfBone_.data(), bone, known, 4);
  }
  const __m256 zero = _mm256_setzero_ps();
  __m256 usual = mask8(_mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_setzero_si256(), count), _mm256_cmpgt_epi32(_mm256_set1_epi32(5), count)));
  for (int c = 0; c < 4; ++c) {
    const __m256 present = mask8(_mm256_cmpgt_epi32(count, _mm256_set1_epi32(c)));
    J[c] = select8(present, J[c], _mm256_setzero_si256());
    w[c] = select8(present, w[c], zero);
    const __m256 fine = _mm256_and_ps(mask8(_mm256_cmpgt_epi32(J[c], minusOne)),
                                      _mm256_and_ps(_mm256_cmp_ps(w[c], zero, _CMP_GE_OQ),
                                                    _mm256_cmp_ps(w[c], _mm256_set1_ps(std::numeric_limits<float>::max()), _CMP_LE_OQ)));
    usual = _mm256_and_ps(usual, _mm256_or_ps(_mm256_xor_ps(present, mask8(minusOne)), fine));
  }
  __m256 any = zero;
  for (int a = 0; a < 4; ++a) {
    any = _mm256_or_ps(any, _mm256_cmp_ps(w[a], zero, _CMP_NEQ_UQ));
    for (int b = a + 1; b < 4; ++b) {
      const __m256 bothWeighted = _mm256_and_ps(_mm256_cmp_ps(w[a], zero, _CMP_NEQ_UQ), _mm256_cmp_ps(w[b], zero, _CMP_NEQ_UQ));
      usual = _mm256_andnot_ps(_mm256_and_ps(mask8(_mm256_cmpeq_epi32(J[a], J[b])), bothWeighted), usual);
    }
  }
  usual = _mm256_and_ps(usual, any);
  const unsigned taken = static_cast<unsigned>(_mm256_movemask_ps(usual));
  if (taken == 0) return 0;
  order8(w, J, 0, 1);
  order8(w, J, 2, 3);
  order8(w, J, 0, 2);
  order8(w, J, 1, 3);
  order8(w, J, 1, 2);
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d inverseLow = _mm256_div_pd(one, _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(low8(w[0]), low8(w[1])), low8(w[2])), low8(w[3])));
  const __m256d inverseHigh =
      _mm256_div_pd(one, _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(high8(w[0]), high8(w[1])), high8(w[2])), high8(w[3])));
  for (int c = 0; c < 4; ++c) {
    const __m256 f = join8(_mm256_mul_pd(low8(w[c]), inverseLow), _mm256_mul_pd(high8(w[c]), inverseHigh));
    const __m256 kept = _mm256_cmp_ps(f, zero, _CMP_NEQ_UQ);
    J[c] = select8(kept, J[c], _mm256_setzero_si256());
    w[c] = select8(kept, f, zero);
  }
  // makeSumExact as in normaliseFourByFour, cycling lanes included.
  __m256 x[3];
  __m256 open = usual;
  for (int round = 0; round < 8; ++round) {
    const __m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(w[0], w[1]), w[2]), w[3]);
    __m256 inexact = _mm256_and_ps(_mm256_cmp_ps(sum, _mm256_set1_ps(1.0f), _CMP_NEQ_UQ), open);
    if (round == 3) {
      const __m256 cycling = _mm256_and_ps(inexact, _mm256_or_ps(_mm256_or_ps(same8(w[0], x[0]), same8(w[0], x[1])), same8(w[0], x[2])));
      w[0] = select8(cycling, x[2], w[0]);
      open = _mm256_andnot_ps(cycling, open);
      inexact = _mm256_andnot_ps(cycling, inexact);
    }
    if (_mm256_movemask_ps(inexact) == 0) break;
    if (round < 3) x[round] = w[0];
    const __m256 fixed = join8(_mm256_add_pd(low8(w[0]), _mm256_sub_pd(one, low8(sum))), _mm256_add_pd(high8(w[0]), _mm256_sub_pd(one, high8(sum))));
    w[0] = select8(inexact, fixed, w[0]);
  }
  storeRows(_mm256_castsi256_ps(J[0]), _mm256_castsi256_ps(J[1]), _mm256_castsi256_ps(J[2]), _mm256_castsi256_ps(J[3]),
            reinterpret_cast<float*>(joint));
  storeRows(w[0], w[1], w[2], w[3], weight);
  return taken;
}

#undef RIGPORT_AVX2

#else

bool InfluenceNormaliser::eightLanes() { return false; }
unsigned InfluenceNormaliser::normaliseEightByEight(const Influence*, const uint32_t*, uint32_t*, float*) const { return 0; }

#endif

size_t distinctInfluences(const Influence* begin, const Influence* end, const std::vector<int32_t>& jointOfBone,
                          std::vector<uint32_t>& scratch) {
  scratch.clear();
  for (const Influence* it = begin; it != end; ++it) {
    if (it->weight == 0.0f || it->bone >= jointOfBone.size() || jointOfBone[it->bone] < 0) continue;
    const uint32_t j = static_cast<uint32_t>(jointOfBone[it->bone]);
    if (std::find(scratch.begin(), scratch.end(), j) == scratch.end()) scratch.push_back(j);
  }
  return scratch.size();
}

}  // namespace rigport::gltf
