// Which vector lanes this build compiles, and the one compiler extension they need. Everything
// here is a decision about the machine, so it lives in the platform room; the lanes themselves are
// ISO C++ plus the vendor intrinsics, and each is tested against the scalar rule it speeds up.
//
//   RIGPORT_SSE2_LANES   1 where SSE2 is the baseline: x86-64 (GCC/clang __SSE2__, MSVC _M_X64)
//                        or 32-bit x86 built for it (_M_IX86_FP >= 2).
//   RIGPORT_AVX2_LANES   1 where AVX2 lanes can be compiled beside an SSE2 baseline and chosen at run
//                        time (cpuHasAvx2()): x86-64 with GCC or clang, whose per-function target
//                        attribute is RIGPORT_TARGET_AVX2.
// Defining RIGPORT_NO_SIMD (CMake option RIGPORT_NO_SIMD) turns both off: every vertex then takes
// the scalar path, which is the rule.
#pragma once

#if !defined(RIGPORT_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2))
#define RIGPORT_SSE2_LANES 1
#else
#define RIGPORT_SSE2_LANES 0
#endif

#if RIGPORT_SSE2_LANES && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RIGPORT_AVX2_LANES 1
#define RIGPORT_TARGET_AVX2 __attribute__((target("avx2")))
#else
#define RIGPORT_AVX2_LANES 0
#define RIGPORT_TARGET_AVX2
#endif

namespace rigport::platform {

// AVX2 in the CPU (CPUID leaf 7) and its registers saved by the OS (OSXSAVE, XCR0's SSE and AVX
// state), asked once, on first use; false where RIGPORT_AVX2_LANES is 0.
bool cpuHasAvx2();

}  // namespace rigport::platform
