// The CLI's allocator policy (platform/allocator_policy.hpp) must really reach glibc: a model-sized
// block freed and allocated again comes from the heap the process keeps, not from a fresh mapping.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "platform/allocator_policy.hpp"

// Where the policy does something: glibc on Linux (allocator_policy.cpp's guard). MinGW has a
// <malloc.h> too, and under Wine the /sys and /proc files below are the Linux host's, not its own.
#if __has_include(<malloc.h>) && __has_include(<sys/mman.h>)
#include <malloc.h>
#include <sys/mman.h>
#endif

#if defined(MADV_HUGEPAGE)
// The bytes of the process's heap advised for transparent huge pages ("hg" in the heap's VmFlags),
// after the policy is set; nullopt where the kernel offers no huge pages at all.
std::optional<unsigned long long> advisedHeapBytes() {
  std::ifstream mode("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(mode, modes);
  if (modes.empty() || modes.find("[never]") != std::string::npos) return std::nullopt;
  rigport::platform::useReadAllocatorPolicy();
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inHeap = false;
  unsigned long long size = 0, advised = 0;
  while (std::getline(smaps, line)) {
    const size_t dash = line.find('-');
    const bool mapping = !line.empty() && std::isxdigit(static_cast<unsigned char>(line[0])) &&
                         dash < line.find(' ');  // "start-end perms offset dev inode [name]"
    if (mapping) {
      inHeap = line.find("[heap]") != std::string::npos;
      size = std::stoull(line.substr(dash + 1), nullptr, 16) - std::stoull(line.substr(0, dash), nullptr, 16);
    } else if (inHeap && line.rfind("VmFlags:", 0) == 0 && line.find(" hg") != std::string::npos) {
      advised += size;
    }
  }
  return advised;
}

// The heap the models are read into is advised for transparent huge pages, where the kernel offers
// them at all.
TEST(AllocatorPolicy, TheHeapIsAdvisedForHugePages) {
  const auto advised = advisedHeapBytes();
  if (!advised) GTEST_SKIP() << "no transparent huge pages here";
  EXPECT_GT(*advised, 0u) << "no part of [heap] has the hg flag";
}

// The advised span holds a whole large model: a 1,000-clip IFP's `convert` grows the heap to about
// 70 MiB, and with 64 MiB advised the rest was faulted in 4 KiB pages (2,365 page faults against
// 1,251, 1.22 times the wall time; BENCHMARKS.md, branch ifp8).
TEST(AllocatorPolicy, TheAdvisedHeapHoldsA70MiBModel) {
  const auto advised = advisedHeapBytes();
  if (!advised) GTEST_SKIP() << "no transparent huge pages here";
  EXPECT_GE(*advised, 96ull << 20) << "advised for huge pages: " << (*advised >> 20) << " MiB of [heap]";
}
#endif

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
TEST(AllocatorPolicy, LargeBlocksComeFromTheKeptHeap) {
  rigport::platform::useReadAllocatorPolicy();
  const size_t mappedBefore = mallinfo2().hblkhd;
  void* block = std::malloc(8 << 20);  // an arena's influences; 64 times glibc's default mmap threshold
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(mallinfo2().hblkhd, mappedBefore) << "an 8 MiB block was mmap'd: the policy did not reach mallopt";
  std::free(block);
  const size_t heapKept = mallinfo2().arena;
  EXPECT_GE(heapKept, size_t{8} << 20) << "the freed block was trimmed from the heap";
}
#endif
