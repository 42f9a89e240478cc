// Source: a mapped file that shrinks while it is read (another program truncates it) must not
// kill the process with SIGBUS; the bytes past its new end read as zeros and the Source says
// from where, so that the read can be refused with that offset.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/budget.hpp"
#include "core/source.hpp"
#include "support/test_support.hpp"

namespace rigport {
namespace {

std::vector<uint8_t> pattern(size_t size) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<uint8_t>(1 + i % 251);  // never zero
  return bytes;
}

std::string writeFile(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = test::scratchDir("core_source") + "/" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return path;
}

TEST(CoreSource, AMappedFileThatShrinksWhileReadGivesZerosAndTheOffsetOfItsNewEnd) {
  const size_t size = 3 * Source::kReadBelowBytes + 123;
  const std::vector<uint8_t> original = pattern(size);
  const std::string path = writeFile("shrinks.bin", original);
  auto source = Source::open(path, Budget::kDefaultLimit);
  ASSERT_TRUE(source.ok()) << source.error().describe();
  const std::span<const uint8_t> bytes = (*source)->bytes();
  ASSERT_EQ(bytes.size(), size);
  EXPECT_FALSE((*source)->unreadableFrom().has_value());
  EXPECT_EQ(bytes[size - 1], original[size - 1]);  // mapped and readable to its last byte

  const size_t kept = Source::kReadBelowBytes + 1000;
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(kept)), 0);
  // Read every byte, in order, as a reader would.
  const uint64_t sum = std::accumulate(bytes.begin(), bytes.end(), uint64_t{0});
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t end = (kept + page - 1) / page * page;  // the kernel zero-fills the new last page's tail
  ASSERT_TRUE((*source)->unreadableFrom().has_value());
  EXPECT_EQ(*(*source)->unreadableFrom(), end);
  EXPECT_EQ(sum, std::accumulate(original.begin(), original.begin() + static_cast<std::ptrdiff_t>(kept), uint64_t{0}));
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(kept), original.begin()));
  EXPECT_TRUE(std::all_of(bytes.begin() + static_cast<std::ptrdiff_t>(kept), bytes.end(), [](uint8_t b) { return b == 0; }));
  (*source)->release(bytes);  // giving back zero pages is harmless
  EXPECT_EQ(bytes[size - 1], 0);
}

// The guard's slots are reused: a file mapped after a damaged one was let go starts clean, and
// many mappings at once are each guarded or read whole, never left unguarded.
TEST(CoreSource, GuardSlotsAreReusedAndNeverRunOut) {
  const std::vector<uint8_t> original = pattern(Source::kReadBelowBytes + 4096 * 3);
  const std::string path = writeFile("many.bin", original);
  for (int round = 0; round < 2; ++round) {
    std::vector<std::shared_ptr<const Source>> open;
    for (int i = 0; i < 300; ++i) {  // more than the guard has slots
      auto source = Source::open(path, Budget::kDefaultLimit);
      ASSERT_TRUE(source.ok()) << source.error().describe();
      ASSERT_TRUE(std::equal(original.begin(), original.end(), (*source)->bytes().begin()));
      EXPECT_FALSE((*source)->unreadableFrom().has_value());
      open.push_back(std::move(*source));
    }
  }
}

}  // namespace
}  // namespace rigport
