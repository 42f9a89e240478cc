#include <gtest/gtest.h>

#include "core/byte_reader.hpp"

using namespace rigport;

TEST(ByteReader, ReadsLittleAndBigEndian) {
  const uint8_t data[] = {0x01, 0x02, 0x03, 0x04};
  ByteReader le(data);
  EXPECT_EQ(*le.u32("x"), 0x04030201u);
  ByteReader be(data, Endian::Big);
  EXPECT_EQ(*be.u32("x"), 0x01020304u);
}
