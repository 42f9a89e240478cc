#include "core/allocator_policy.hpp"

#if __has_include(<malloc.h>)
#include <malloc.h>
#endif

namespace rigport {

void useReadAllocatorPolicy() {
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)  // glibc's mallopt
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest allowed value on 64-bit
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

}  // namespace rigport
