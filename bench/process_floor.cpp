// process_floor IN OUT OUT_BYTES: the work no whole-process converter can skip, and nothing else,
// for scripts/bench_process.sh to time beside `rigport convert` (issue 11's 1 GB/s target). It
// starts with the CLI's allocator policy, maps IN as the CLI does (core/source.hpp), copies every
// input byte once into memory of its own, grown to OUT_BYTES if the output is larger, and writes
// OUT_BYTES of that memory to OUT through the CLI's atomic writer (a temporary file renamed over
// OUT). A `convert` also parses, checks and lays out; its time minus this one's is what those cost.
// Exit 1 when IN cannot be read or OUT written, 2 on bad arguments.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/default_init_allocator.hpp"
#include "core/source.hpp"
#include "platform/files.hpp"
#include "platform/process.hpp"

int main(int argc, char** argv) {
  char* end = nullptr;
  const unsigned long long outBytes = argc == 4 ? std::strtoull(argv[3], &end, 10) : 0;
  if (argc != 4 || end == argv[3] || *end != '\0') {
    std::fprintf(stderr, "usage: process_floor IN OUT OUT_BYTES\n");
    return 2;
  }
  rigport::platform::startProgram(argc, argv);  // as the CLI starts: its allocator policy, files mapped
  auto source = rigport::Source::open(argv[1], uint64_t{1} << 32);
  if (!source) {
    std::fprintf(stderr, "process_floor: %s\n", source.error().describe().c_str());
    return 1;
  }
  const std::span<const uint8_t> in = (*source)->bytes();
  // Default-initialised, as the readers' arrays are: each byte is written once, by the copy or the fill.
  std::vector<uint8_t, rigport::DefaultInitAllocator<uint8_t>> owned(std::max<size_t>(in.size(), outBytes));
  std::memcpy(owned.data(), in.data(), in.size());
  std::memset(owned.data() + in.size(), 0x5A, owned.size() - in.size());
  if (auto written = rigport::platform::writeFileAtomic(argv[2], std::span<const uint8_t>(owned.data(), outBytes)); !written) {
    std::fprintf(stderr, "process_floor: %s\n", written.error().describe().c_str());
    return 1;
  }
  return 0;
}
