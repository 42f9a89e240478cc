// The glibc branch; elsewhere the policy is the C library's own.
#include "platform/allocator_policy.hpp"

#if __has_include(<malloc.h>) && __has_include(<sys/mman.h>)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#endif

namespace rigport::platform {

void useReadAllocatorPolicy() {
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD) && defined(M_TOP_PAD) && defined(MADV_HUGEPAGE)  // glibc, Linux
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest allowed value on 64-bit
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  // The heap grows by kHugeHeapBytes at once (address space only: a page costs memory once touched), and
  // that span is advised for transparent huge pages, so a model read into it is faulted in 2 MiB
  // at a time. Growth past it gets ordinary pages, as before.
  mallopt(M_TOP_PAD, kHugeHeapBytes);
  void* probe = std::malloc(1 << 20);  // grows the heap by the pad
  constexpr uintptr_t kHugePage = 2 << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(probe) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = reinterpret_cast<uintptr_t>(sbrk(0)) & ~(kHugePage - 1);
  if (probe != nullptr && end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
  std::free(probe);
#endif
}

}  // namespace rigport::platform
