// The CLI's allocator policy (core/allocator_policy.hpp) must really reach glibc: a model-sized
// block freed and allocated again comes from the heap the process keeps, not from a fresh mapping.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/allocator_policy.hpp"

#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
TEST(AllocatorPolicy, LargeBlocksComeFromTheKeptHeap) {
  rigport::useReadAllocatorPolicy();
  const size_t mappedBefore = mallinfo2().hblkhd;
  void* block = std::malloc(8 << 20);  // an arena's influences; 64 times glibc's default mmap threshold
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(mallinfo2().hblkhd, mappedBefore) << "an 8 MiB block was mmap'd: the policy did not reach mallopt";
  std::free(block);
  const size_t heapKept = mallinfo2().arena;
  EXPECT_GE(heapKept, size_t{8} << 20) << "the freed block was trimmed from the heap";
}
#endif
