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
void useReadAllocatorPolicy();
constexpr int kHugeHeapBytes = 64 << 20;

}  // namespace rigport::platform
