// Name hashes (core/hash.hpp): FNV-1 against the published FNV test vectors, and the Sims 3
// lower-casing variants against the values the format note measured on real data.
#include <gtest/gtest.h>

#include "core/hash.hpp"

using namespace rigport;

namespace {

// Landon Curt Noll's FNV test vectors (isthe.com/chongo/tech/comp/fnv), FNV-1 (not 1a) columns.
TEST(Hash, Fnv1MatchesThePublishedTestVectors) {
  EXPECT_EQ(fnv1_32(""), 0x811C9DC5u);
  EXPECT_EQ(fnv1_32("a"), 0x050C5D7Eu);
  EXPECT_EQ(fnv1_32("foobar"), 0x31F0B262u);
  EXPECT_EQ(fnv1_64(""), 0xCBF29CE484222325ull);
  EXPECT_EQ(fnv1_64("a"), 0xAF63BD4C8601B7BEull);
  EXPECT_EQ(fnv1_64("foobar"), 0x340D8765A4DDA9C2ull);
}

// sims3_clip.md §2.13: bone track keys are FNV32 of the lower-cased name.
TEST(Hash, Sims3BoneKeysAreFnv1_32OfTheLowerCasedName) {
  EXPECT_EQ(fnv1_32Lower("b__ROOT_bind__"), 0x57884BB9u);
  EXPECT_EQ(fnv1_32Lower("b__ROOT__"), 0xFEAE6981u);
  EXPECT_EQ(fnv1_32Lower("B__root__"), 0xFEAE6981u);
  EXPECT_EQ(fnv1_32("b__root__"), 0xFEAE6981u) << "the same as plain FNV-1 of the lower-case text";
  EXPECT_NE(fnv1_32("b__ROOT__"), 0xFEAE6981u) << "case-sensitive FNV-1 is not the Sims 3 key";
}

// sims3_clip.md §2.13 worked example: the clip instance of c_buff_EWGermy_coughing_x is
// (FNV64("a_buff_…") & 0x7FFF…) ^ ((0x8000 | AGE[c] << 8) << 48) = 0xAE79976FFBB8D529.
TEST(Hash, Sims3ClipInstanceWorkedExampleUsesFnv1_64OfTheLowerCasedName) {
  const uint64_t generic = fnv1_64Lower("a_buff_EWGermy_coughing_x");
  EXPECT_EQ(generic & 0x7FFFFFFFFFFFFFFFull, 0x2D79976FFBB8D529ull);
  EXPECT_EQ((generic & 0x7FFFFFFFFFFFFFFFull) ^ (uint64_t{0x8000 | 3 << 8} << 48), 0xAE79976FFBB8D529ull);
  EXPECT_EQ(fnv1_64Lower("A_BUFF_EWGERMY_COUGHING_X"), generic);
}

TEST(Hash, LowerCasingFoldsOnlyAsciiLetters) {
  EXPECT_EQ(fnv1_32Lower("\xC0"), fnv1_32("\xC0"));  // Latin-1 / UTF-8 lead bytes are hashed as they are
  EXPECT_NE(fnv1_32Lower("\xC0"), fnv1_32("\xE0"));
  EXPECT_EQ(fnv1_32Lower("[@`{"), fnv1_32("[@`{"));  // the neighbours of 'A'..'Z' and 'a'..'z'
  EXPECT_EQ(fnv1_64Lower("Z"), fnv1_64("z"));
}

TEST(Hash, HashNameAppliesTheNamedFunction) {
  EXPECT_EQ(hashName(HashKind::Fnv1_32Lower, "b__ROOT__"), 0xFEAE6981ull);
  EXPECT_EQ(hashName(HashKind::Fnv1_64Lower, "a_buff_EWGermy_coughing_x") & 0x7FFFFFFFFFFFFFFFull, 0x2D79976FFBB8D529ull);
  // Morph/driver keys are the low 32 bits of FNV64 (sims3_clip.md §2.9).
  EXPECT_EQ(hashName(HashKind::Fnv1_64LowerLow32, "a_buff_EWGermy_coughing_x"), 0xFBB8D529ull);
}

}  // namespace
