// ByteReader at every bound: each read either succeeds within the span or fails with the
// absolute offset, the byte counts and the field path, and never moves past the end.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"

#include <glm/glm.hpp>

using namespace rigport;

TEST(ByteReader, ReadsLittleAndBigEndianIntegers) {
  const uint8_t data[] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  ByteReader le(data);
  EXPECT_EQ(*le.u16("a"), 0x0201u);
  EXPECT_EQ(*le.u16("b"), 0x0403u);
  EXPECT_EQ(*le.u32("c"), 0x08070605u);
  ByteReader be(data, Endian::Big);
  EXPECT_EQ(*be.u64("x"), 0x0102030405060708ull);
  ByteReader bs(data, Endian::Big);
  EXPECT_EQ(*bs.u8("y"), 0x01u);
  EXPECT_EQ(*bs.u32("z"), 0x02030405u);
}

TEST(ByteReader, ReadsSignedAndFloatValues) {
  ByteWriter w(Endian::Big);
  w.s8(-3);
  w.s16(-300);
  w.s32(-70000);
  w.s64(-5000000000ll);
  w.f32(1.5f);
  w.f16(-2.0f);
  ByteReader r(w.bytes(), Endian::Big);
  EXPECT_EQ(*r.s8("a"), -3);
  EXPECT_EQ(*r.s16("b"), -300);
  EXPECT_EQ(*r.s32("c"), -70000);
  EXPECT_EQ(*r.s64("d"), -5000000000ll);
  EXPECT_EQ(*r.f32("e"), 1.5f);
  EXPECT_EQ(*r.f16("f"), -2.0f);
  EXPECT_TRUE(r.atEnd());
}

TEST(ByteReader, EveryWidthFailsOneByteShortOfTheEnd) {
  const uint8_t data[8] = {};
  for (size_t width : {1u, 2u, 4u, 8u}) {
    for (size_t start = 0; start <= sizeof data; ++start) {
      ByteReader r(std::span<const uint8_t>(data), Endian::Little, 0x100);
      ASSERT_TRUE(r.skip(start, "pad"));
      auto status = [](auto result) -> Status {
        if (result) return Ok{};
        return result.error();
      };
      Status got = Ok{};
      switch (width) {
        case 1: got = status(r.u8("v")); break;
        case 2: got = status(r.u16("v")); break;
        case 4: got = status(r.u32("v")); break;
        default: got = status(r.u64("v")); break;
      }
      const bool fits = start + width <= sizeof data;
      EXPECT_EQ(got.ok(), fits) << "width " << width << " start " << start;
      if (!fits) {
        EXPECT_EQ(got.error().code, ErrorCode::Truncated);
        EXPECT_EQ(got.error().offset.value(), 0x100u + start);
        EXPECT_EQ(r.position(), start) << "a failed read must not move the cursor";
      }
    }
  }
}

TEST(ByteReader, TruncationErrorNamesOffsetBytesAndFieldPath) {
  const uint8_t data[6] = {};
  ByteReader r(std::span<const uint8_t>(data), Endian::Little, 0x1A28, "Geometry[0]");
  auto skin = r.sub(6, "SkinPlg");
  ASSERT_TRUE(skin);
  ASSERT_TRUE(skin->u32("numBones"));
  auto idx = skin->u32({"boneIndices", 1023});
  ASSERT_FALSE(idx);
  EXPECT_EQ(idx.error().describe(), "Geometry[0]/SkinPlg/boneIndices[1023]: needs 4 bytes, 2 remain (at 0x1A2C)");
}

TEST(ByteReader, ScopesNestAndUnwind) {
  const uint8_t data[1] = {};
  ByteReader r(data, Endian::Little, 0, "Clump");
  {
    auto a = r.scope({"Atomic", 2});
    auto b = r.scope("Struct");
    EXPECT_EQ(r.path(), "Clump/Atomic[2]/Struct");
  }
  EXPECT_EQ(r.path(), "Clump");
}

TEST(ByteReader, SubReaderPathsNameEverySegmentAndIndex) {
  const uint8_t data[8] = {};
  ByteReader root(data);  // no path: the first segment is the whole path
  auto pkg = root.sub(8, {"ANPK", 0});
  ASSERT_TRUE(pkg);
  EXPECT_EQ(pkg->path(), "ANPK[0]");
  auto track = pkg->sub(8, {"CPAN", std::numeric_limits<int64_t>::max()});
  ASSERT_TRUE(track);
  EXPECT_EQ(track->path(), "ANPK[0]/CPAN[9223372036854775807]");
  auto keys = track->sub(8, "keys");
  ASSERT_TRUE(keys);
  EXPECT_EQ(keys->path(), "ANPK[0]/CPAN[9223372036854775807]/keys");
  auto same = keys->sub(8, "");  // an empty segment adds nothing
  ASSERT_TRUE(same);
  EXPECT_EQ(same->path(), keys->path());
  auto k = same->u32({"k", 12});
  ASSERT_TRUE(k);
  auto past = same->u64({"k", 13});
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error().path, "ANPK[0]/CPAN[9223372036854775807]/keys/k[13]");
}

// Paths are held inline up to 54 characters and on the heap beyond (PathText): a path growing
// past that, a scope crossing it and unwinding, and a copy of a long path all read as the plain
// concatenation; a sub-reader keeps its path after its parent is gone.
TEST(ByteReader, PathsLongerThanTheInlineBufferReadTheSame) {
  const uint8_t data[4] = {};
  std::string expected = "root";
  ByteReader r(data, Endian::Little, 0, "root");
  std::vector<ByteReader> chain;
  for (int64_t i = 0; i < 40; ++i) {
    auto child = (chain.empty() ? r : chain.back()).window(0, 4, {"segment", i * 1000});
    ASSERT_TRUE(child);
    expected += "/segment[" + std::to_string(i * 1000) + "]";
    EXPECT_EQ(child->path(), expected);
    chain.push_back(*child);
  }
  ByteReader copy = chain[30];
  EXPECT_EQ(copy.path(), chain[30].path());
  {
    ByteReader shortOne = chain[1];
    const std::string before = shortOne.path();
    ASSERT_LT(before.size(), 54u);
    {
      auto scope = shortOne.scope(std::string(120, 'x').c_str());
      EXPECT_EQ(shortOne.path(), before + "/" + std::string(120, 'x'));
      auto past = shortOne.u64("value");
      ASSERT_FALSE(past);
      EXPECT_EQ(past.error().path, before + "/" + std::string(120, 'x') + "/value");
    }
    EXPECT_EQ(shortOne.path(), before);
  }
  Result<ByteReader> orphan = [&] {
    ByteReader parent(data, Endian::Little, 0, expected);
    return parent.sub(4, "orphan");
  }();
  ASSERT_TRUE(orphan);
  EXPECT_EQ(orphan->path(), expected + "/orphan");
}

TEST(ByteReader, SubReaderIsBoundedAndParentResumesAfterIt) {
  const uint8_t data[] = {1, 2, 3, 4, 5, 6};
  ByteReader r(data, Endian::Little, 10);
  auto child = r.sub(3, "chunk");
  ASSERT_TRUE(child);
  EXPECT_EQ(child->fileOffset(), 10u);
  EXPECT_EQ(r.position(), 3u);
  EXPECT_EQ(*child->u16("a"), 0x0201u);
  EXPECT_FALSE(child->u16("b")) << "the child cannot read into the parent's remaining bytes";
  EXPECT_EQ(*r.u8("next"), 4u);
  EXPECT_FALSE(r.sub(3, "tooBig"));
  EXPECT_EQ(r.position(), 4u);
}

TEST(ByteReader, WindowOutsideTheSpanFails) {
  const uint8_t data[4] = {};
  ByteReader r(data);
  EXPECT_TRUE(r.window(0, 4, "all"));
  EXPECT_TRUE(r.window(4, 0, "empty at end"));
  EXPECT_FALSE(r.window(3, 2, "overhang"));
  EXPECT_FALSE(r.window(5, 0, "past end"));
  EXPECT_FALSE(r.window(1, std::numeric_limits<size_t>::max(), "wraps"));
}

TEST(ByteReader, CountIsCheckedAgainstRemainingBytesBeforeAllocation) {
  const uint8_t data[16] = {};
  ByteReader r(data);
  EXPECT_EQ(*r.count(4, 4, "n"), 4u);
  auto tooMany = r.count(5, 4, "n");
  ASSERT_FALSE(tooMany);
  EXPECT_EQ(tooMany.error().code, ErrorCode::TooLarge);
  // A count whose byte size overflows 64 bits is rejected, not wrapped.
  EXPECT_FALSE(r.count(std::numeric_limits<uint64_t>::max(), 16, "n"));
  auto huge = r.array<float>(0xFFFFFFFFull, "weights");
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("4294967295"), std::string::npos);
  EXPECT_EQ(r.position(), 0u);
}

TEST(ByteReader, ArraySwapsBigEndianElements) {
  ByteWriter w(Endian::Big);
  w.u16(0x1234);
  w.u16(0xABCD);
  ByteReader r(w.bytes(), Endian::Big);
  auto v = r.array<uint16_t>(2, "v");
  ASSERT_TRUE(v);
  EXPECT_EQ((*v)[0], 0x1234u);
  EXPECT_EQ((*v)[1], 0xABCDu);
  EXPECT_TRUE(r.atEnd());
}

TEST(ByteReader, ArrayIntoReplacesWhatTheVectorHeld) {
  ByteWriter w(Endian::Big);
  w.u16(0x1234);
  w.u16(0xABCD);
  w.u16(0x5678);
  ByteReader r(w.bytes(), Endian::Big);
  std::vector<uint16_t> v{9, 9, 9, 9, 9};
  ASSERT_TRUE(r.arrayInto(v, 2, "v"));
  EXPECT_EQ(v, (std::vector<uint16_t>{0x1234, 0xABCD}));
  EXPECT_FALSE(r.arrayInto(v, 2, "v")) << "one value remains";
  EXPECT_EQ(r.position(), 4u);
  ASSERT_TRUE(r.arrayInto(v, 1, "v"));
  EXPECT_EQ(v, (std::vector<uint16_t>{0x5678}));
}

// records() copies aligned bytes in one move and misaligned ones through a sized vector: both
// give the same records, and both swap a big-endian file's scalars.
TEST(ByteReader, RecordsAreTheSameAlignedOrNot) {
  ByteWriter le(Endian::Little), be(Endian::Big);
  for (float f : {1.5f, -2.0f, 3.25f, 0.0f, 1e-3f, 7.0f}) le.f32(f), be.f32(f);
  for (size_t shift : {0u, 1u, 2u, 3u}) {
    for (bool big : {false, true}) {
      alignas(16) uint8_t buffer[64] = {};
      const std::vector<uint8_t>& bytes = big ? be.bytes() : le.bytes();
      std::copy(bytes.begin(), bytes.end(), buffer + shift);
      ByteReader r(std::span<const uint8_t>(buffer + shift, bytes.size()), big ? Endian::Big : Endian::Little);
      auto got = r.records<glm::vec3, float>(2, "v");
      ASSERT_TRUE(got) << shift;
      ASSERT_EQ(got->size(), 2u);
      EXPECT_EQ((*got)[0], glm::vec3(1.5f, -2.0f, 3.25f)) << shift << big;
      EXPECT_EQ((*got)[1], glm::vec3(0.0f, 1e-3f, 7.0f)) << shift << big;
      EXPECT_TRUE(r.atEnd());
    }
  }
}

TEST(ByteReader, FixedStringStopsAtNulAndConsumesTheWholeField) {
  const uint8_t data[] = {'R', 'o', 'o', 't', 0, 'x', 'y', 'z', 'A'};
  ByteReader r(data);
  EXPECT_EQ(*r.fixedString(8, "name"), "Root");
  EXPECT_EQ(r.position(), 8u);
  EXPECT_FALSE(r.fixedString(2, "next"));
}

TEST(ByteReader, CStringWithoutTerminatorFails) {
  const uint8_t good[] = {'a', 'b', 0, 'c'};
  ByteReader r(good);
  EXPECT_EQ(*r.cString("s"), "ab");
  EXPECT_EQ(r.position(), 3u);
  auto bad = r.cString("t");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::Truncated);
  EXPECT_EQ(r.position(), 3u);
}

TEST(ByteReader, SeekAndSkipStayInsideTheSpan) {
  const uint8_t data[4] = {};
  ByteReader r(data);
  EXPECT_TRUE(r.seek(4, "end"));
  EXPECT_FALSE(r.seek(5, "past"));
  EXPECT_TRUE(r.seek(1, "back"));
  EXPECT_FALSE(r.skip(4, "over"));
  EXPECT_TRUE(r.skip(3, "fits"));
  EXPECT_TRUE(r.atEnd());
}

TEST(ByteReader, EmptySpanFailsEveryRead) {
  ByteReader r;
  EXPECT_FALSE(r.u8("a"));
  EXPECT_FALSE(r.f32("b"));
  EXPECT_FALSE(r.cString("c"));
  EXPECT_TRUE(r.fixedString(0, "d"));
  EXPECT_TRUE(r.array<uint32_t>(0, "e"));
}

TEST(HalfFloat, DecodesNormalsSubnormalsAndSpecials) {
  EXPECT_EQ(halfToFloat(0x3C00), 1.0f);
  EXPECT_EQ(halfToFloat(0xC000), -2.0f);
  EXPECT_EQ(halfToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x8000), -0.0f);
  EXPECT_TRUE(std::isinf(halfToFloat(0x7C00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7E00)));
}

// The bit-moving decoder against binary16's definition, (-1)^s × 2^(e-15) × (1 + m/1024) (e = 0:
// 2^-14 × m/1024), for every code; NaN codes must stay NaN with their sign.
TEST(HalfFloat, EveryCodeMatchesTheDefinition) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint32_t e = (h >> 10) & 0x1F, m = h & 0x3FF;
    const float sign = (h & 0x8000) ? -1.0f : 1.0f;
    const float decoded = halfToFloat(static_cast<uint16_t>(h));
    if (e == 31 && m != 0) {
      ASSERT_TRUE(std::isnan(decoded)) << std::hex << h;
      ASSERT_EQ(std::signbit(decoded), (h & 0x8000) != 0) << std::hex << h;
      continue;
    }
    const float expected = e == 31 ? sign * INFINITY
                           : e == 0 ? sign * std::ldexp(static_cast<float>(m), -24)
                                    : sign * std::ldexp(static_cast<float>(m | 0x400), static_cast<int>(e) - 25);
    ASSERT_EQ(std::bit_cast<uint32_t>(decoded), std::bit_cast<uint32_t>(expected)) << std::hex << h;
  }
}

TEST(HalfFloat, EveryFiniteHalfRoundTripsThroughFloat) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const uint16_t bits = static_cast<uint16_t>(h);
    if ((bits & 0x7C00) == 0x7C00) continue;  // inf / NaN
    ASSERT_EQ(floatToHalf(halfToFloat(bits)), bits) << std::hex << h;
  }
}

TEST(ByteWriter, PatchesAReservedSizeInTheWritersEndianness) {
  ByteWriter w(Endian::Big);
  w.u32(0);
  w.fixedString("abcdef", 4);
  w.patchU32(0, 0x11223344u);
  ByteReader r(w.bytes(), Endian::Big);
  EXPECT_EQ(*r.u32("size"), 0x11223344u);
  EXPECT_EQ(*r.fixedString(4, "s"), "abcd");
}
