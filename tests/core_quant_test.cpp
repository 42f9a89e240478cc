// Quantisation helpers (core/quant.hpp): every code of every width round-trips, the edges (0, the
// extremes, −0, the clamped most negative snorm code) decode to the exact values, and the packed
// layouts put each field in the bits the format notes give.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/quant.hpp"

using namespace rigport::quant;

namespace {

TEST(Quant, UnormRoundTripsEveryCodeAndHitsZeroAndOneExactly) {
  for (unsigned bits = 1; bits <= 16; ++bits) {
    const uint32_t max = (1u << bits) - 1;
    for (uint32_t c = 0; c <= max; ++c) ASSERT_EQ(floatToUnorm(unormToFloat(c, bits), bits), c) << bits << " bits, code " << c;
    EXPECT_EQ(unormToFloat(0, bits), 0.0f);
    EXPECT_EQ(unormToFloat(max, bits), 1.0f);
    EXPECT_EQ(unormToFloat(max + 1, bits), 0.0f) << "bits above the width are ignored";
  }
  // Sims 3: 12-bit rotation magnitudes are raw/4095, 10-bit translations raw/1023 (sims3_clip.md R4, R5).
  EXPECT_EQ(unormToFloat(2048, 12), 2048.0f / 4095.0f);
  EXPECT_EQ(unormToFloat(512, 10), 512.0f / 1023.0f);
}

TEST(Quant, UnormEncoderClampsAndRoundsToNearest) {
  EXPECT_EQ(floatToUnorm(-0.5f, 8), 0u);
  EXPECT_EQ(floatToUnorm(-0.0f, 8), 0u);
  EXPECT_EQ(floatToUnorm(2.0f, 8), 255u);
  EXPECT_EQ(floatToUnorm(std::numeric_limits<float>::infinity(), 8), 255u);
  EXPECT_EQ(floatToUnorm(std::numeric_limits<float>::quiet_NaN(), 8), 0u);
  EXPECT_EQ(floatToUnorm(1.4f / 255.0f, 8), 1u);
  EXPECT_EQ(floatToUnorm(1.6f / 255.0f, 8), 2u);
}

TEST(Quant, SignExtendReadsTheLowBitsAsTwosComplement) {
  EXPECT_EQ(signExtend(0x3FF, 10), -1);
  EXPECT_EQ(signExtend(0x200, 10), -512);
  EXPECT_EQ(signExtend(0x1FF, 10), 511);
  EXPECT_EQ(signExtend(0xFFFFF1FF, 10), 511) << "bits above the width are ignored";
  EXPECT_EQ(signExtend(0x80000000u, 32), std::numeric_limits<int32_t>::min());
}

TEST(Quant, SnormRoundTripsEveryCodeButTheClampedMostNegative) {
  for (unsigned bits = 2; bits <= 16; ++bits) {
    const uint32_t mask = (1u << bits) - 1;
    const int32_t max = (1 << (bits - 1)) - 1;
    for (int32_t c = -max; c <= max; ++c) {
      const uint32_t code = static_cast<uint32_t>(c) & mask;
      ASSERT_EQ(floatToSnorm(snormToFloat(code, bits), bits), code) << bits << " bits, code " << c;
    }
    const uint32_t mostNegative = 1u << (bits - 1);
    EXPECT_EQ(snormToFloat(mostNegative, bits), -1.0f) << bits;
    EXPECT_EQ(snormToFloat(mostNegative + 1, bits), -1.0f) << bits;
    EXPECT_EQ(floatToSnorm(-1.0f, bits), mostNegative + 1) << "−1 is written as −max, never the extreme code";
    EXPECT_EQ(snormToFloat(static_cast<uint32_t>(max), bits), 1.0f) << bits;
  }
}

TEST(Quant, SnormZeroIsExactAndMinusZeroEncodesAsZero) {
  EXPECT_EQ(floatToSnorm(-0.0f, 16), 0u);
  const float zero = snormToFloat(0, 16);
  EXPECT_EQ(zero, 0.0f);
  EXPECT_FALSE(std::signbit(zero));
  EXPECT_EQ(floatToSnorm(-2.0f, 16), 0x8001u);
  EXPECT_EQ(floatToSnorm(2.0f, 16), 0x7FFFu);
  EXPECT_EQ(floatToSnorm(std::numeric_limits<float>::quiet_NaN(), 16), 0u);
}

// GX fixed point, value = raw / 2^shift (sluggers.md §3): q=0x3B is s16 with 11 fractional bits;
// ANM quaternions are s16 Q14 (§7); SKN data is s16 with posNrmShift bits (§5).
TEST(Quant, FixedPointDividesByTwoToTheShift) {
  EXPECT_EQ(fixedToFloat(2048, 11), 1.0f);
  EXPECT_EQ(fixedToFloat(-32768, 11), -16.0f);
  EXPECT_EQ(fixedToFloat(32767, 11), 32767.0f / 2048.0f);
  EXPECT_EQ(fixedToFloat(16384, 14), 1.0f);
  EXPECT_EQ(fixedToFloat(-16384, 14), -1.0f);
  EXPECT_EQ(fixedToFloat(255, 0), 255.0f);
  EXPECT_EQ(fixedToFloat(1, 8), 1.0f / 256.0f);
}

TEST(Quant, FixedPointRoundTripsEveryCodeOfEachGxType) {
  struct Type {
    unsigned bits;
    bool isSigned;
  };
  for (const Type type : {Type{8, false}, Type{8, true}, Type{16, false}, Type{16, true}}) {
    const int32_t lo = type.isSigned ? -(1 << (type.bits - 1)) : 0;
    const int32_t hi = type.isSigned ? (1 << (type.bits - 1)) - 1 : (1 << type.bits) - 1;
    for (unsigned frac : {0u, 6u, 11u, 14u, 15u}) {
      for (int32_t raw = lo; raw <= hi; ++raw) {
        ASSERT_EQ(floatToFixed(fixedToFloat(raw, frac), frac, type.bits, type.isSigned), raw) << type.bits << " bits, frac " << frac;
      }
      EXPECT_EQ(floatToFixed(1e9f, frac, type.bits, type.isSigned), hi);
      EXPECT_EQ(floatToFixed(-1e9f, frac, type.bits, type.isSigned), lo);
    }
  }
  EXPECT_EQ(floatToFixed(-0.0f, 11, 16, true), 0);
}

TEST(Quant, Unorm1010102PutsXYZInTenBitFieldsFromBitZero) {
  // sims3_clip.md §2.7: x = w & 0x3FF, y = (w >> 10) & 0x3FF, z = (w >> 20) & 0x3FF, each /1023.
  const uint32_t word = 1023u | 512u << 10 | 1u << 20 | 3u << 30;
  const glm::vec4 v = unpackUnorm1010102(word);
  EXPECT_EQ(v.x, 1.0f);
  EXPECT_EQ(v.y, 512.0f / 1023.0f);
  EXPECT_EQ(v.z, 1.0f / 1023.0f);
  EXPECT_EQ(v.w, 1.0f);
  EXPECT_EQ(packUnorm1010102(v), word);
  for (uint32_t c = 0; c < 1024; ++c) {
    const uint32_t w = c | (1023 - c) << 10 | ((c * 7) & 1023) << 20 | (c & 3) << 30;
    ASSERT_EQ(packUnorm1010102(unpackUnorm1010102(w)), w) << c;
  }
}

TEST(Quant, Snorm1010102SignExtendsEachField) {
  const uint32_t word = 0x200u | 0x1FFu << 10 | 0x3FFu << 20 | 1u << 30;
  const glm::vec4 v = unpackSnorm1010102(word);
  EXPECT_EQ(v.x, -1.0f);  // the clamped most negative code
  EXPECT_EQ(v.y, 1.0f);
  EXPECT_EQ(v.z, -1.0f / 511.0f);
  EXPECT_EQ(v.w, 1.0f);
  EXPECT_EQ(unpackSnorm1010102(3u << 30).w, -1.0f);
  EXPECT_EQ(unpackSnorm1010102(2u << 30).w, -1.0f);
  EXPECT_EQ(packSnorm1010102(v), 0x201u | 0x1FFu << 10 | 0x3FFu << 20 | 1u << 30);
  for (int32_t c = -511; c <= 511; ++c) {
    const uint32_t f = static_cast<uint32_t>(c) & 0x3FF;
    const uint32_t w = f | f << 10 | f << 20 | (static_cast<uint32_t>(c % 2) & 3) << 30;
    ASSERT_EQ(packSnorm1010102(unpackSnorm1010102(w)), w) << c;
  }
}

// rw4_arena.md §3.1: CMP is x bits 0–10, y 11–21, z 22–31, sign-extended, /1023, /1023, /511.
TEST(Quant, Cmp111110IsElevenElevenTenSignedNormalised) {
  EXPECT_EQ(unpackCmp111110(1023u), glm::vec3(1, 0, 0));
  EXPECT_EQ(unpackCmp111110(1023u << 11), glm::vec3(0, 1, 0));
  EXPECT_EQ(unpackCmp111110(511u << 22), glm::vec3(0, 0, 1));
  EXPECT_EQ(unpackCmp111110(0x7FFu | 0x7FFu << 11 | 0x3FFu << 22), glm::vec3(-1.0f / 1023, -1.0f / 1023, -1.0f / 511));
  EXPECT_EQ(unpackCmp111110(0x400u | 0x400u << 11 | 0x200u << 22), glm::vec3(-1, -1, -1)) << "the extremes clamp to −1";
  EXPECT_EQ(packCmp111110(glm::vec3(-1, -1, -1)), 0x401u | 0x401u << 11 | 0x201u << 22);
  EXPECT_EQ(packCmp111110(glm::vec3(-0.0f)), 0u);
  for (int32_t c = -511; c <= 511; ++c) {
    const uint32_t w = (static_cast<uint32_t>(c * 2) & 0x7FF) | (static_cast<uint32_t>(-c * 2) & 0x7FF) << 11 | (static_cast<uint32_t>(c) & 0x3FF) << 22;
    ASSERT_EQ(packCmp111110(unpackCmp111110(w)), w) << c;
  }
}

// sluggers.md §5: weights are u8/256; SK2 pairs sum to 256; a full weight is two records 255 + 1.
TEST(Quant, SluggersWeightsAreOver256NotOver255) {
  EXPECT_EQ(weightOver256(0), 0.0f);
  EXPECT_EQ(weightOver256(128) + weightOver256(128), 1.0f);
  EXPECT_EQ(weightOver256(255), 255.0f / 256.0f) << "255 alone is not a full weight";
  EXPECT_EQ(weightOver256(255) + weightOver256(1), 1.0f);
  for (uint32_t raw = 0; raw < 256; ++raw) ASSERT_EQ(weightTo256ths(weightOver256(static_cast<uint8_t>(raw))), raw);
  EXPECT_EQ(weightTo256ths(1.0f), 256u);
  EXPECT_EQ(weightTo256ths(1.5f), 256u);
  EXPECT_EQ(weightTo256ths(-0.1f), 0u);
  EXPECT_EQ(weightTo256ths(std::numeric_limits<float>::quiet_NaN()), 0u);
}

}  // namespace
