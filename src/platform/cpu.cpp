// CPU feature detection (platform/simd.hpp). Not __builtin_cpu_supports: it links libgcc's feature
// probe, which runs at every start and asks CPUID for a dozen leaves, each a trip to the hypervisor
// on a virtual machine.
#include "platform/simd.hpp"

#if RIGPORT_AVX2_LANES
#include <cpuid.h>
#endif

namespace rigport::platform {

#if RIGPORT_AVX2_LANES

bool cpuHasAvx2() {
  static const bool avx2 = [] {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) == 0 || (c & bit_OSXSAVE) == 0 || (c & bit_AVX) == 0) return false;
    unsigned xcr0 = 0, xcr0High = 0;
    __asm__("xgetbv" : "=a"(xcr0), "=d"(xcr0High) : "c"(0));
    if ((xcr0 & 6) != 6) return false;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) != 0 && (b & bit_AVX2) != 0;
  }();
  return avx2;
}

#else

bool cpuHasAvx2() { return false; }

#endif

}  // namespace rigport::platform
