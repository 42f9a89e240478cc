// The allocator settings a rigport process runs with: the CLI's, and the benchmarks', so that they
// measure what the CLI does. Process-wide, so only a program's main() calls it, before any thread.
#pragma once

namespace rigport::platform {

// glibc's defaults unmap every freed block over 128 KiB and trim the heap above 128 KiB free, so
// a process that reads model after model (a batch, a benchmark loop) gets every large array from
// the kernel again, zero-filled and faulted in page by page: 200 files of 347 KB gave 18,276 page
// faults, 1,388 with these settings (BENCHMARKS.md, batch rows), and a 6.8 MB arena read repeated
// in one process took 12.4 ms instead of 5.0 ms. Freed memory is kept for the next model instead.
// The main heap's first kHugeHeapBytes are also advised for transparent huge pages: even a single
// read spent 43 % of a whole `convert` in page faults (BENCHMARKS.md, whole-process rows). Threads
// other than the main one allocate from glibc's per-thread arenas, which keep 4 KiB pages.
// 128 MiB, not 64: a 1,000-clip IFP's `convert` grows the heap to about 70 MiB, and the 6 MiB or so
// past 64 were faulted 4 KiB at a time (2,365 page faults against 1,251; 0.822 of the time with 128,
// BENCHMARKS.md, branch ifp8). Only the address space is larger: a page costs memory once touched.
void useReadAllocatorPolicy();
constexpr int kHugeHeapBytes = 128 << 20;

}  // namespace rigport::platform
