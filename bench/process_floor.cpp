// process_floor IN OUT OUT_BYTES [FILES]: the work no whole-process converter can skip, and nothing
// else, for scripts/bench_process.sh and scripts/bench_pair.py to time beside `rigport convert`
// (issue 11's 1 GB/s target, issue 30's ratios). It starts with the CLI's allocator policy, maps IN
// as the CLI does (core/source.hpp), copies every input byte once into memory of its own, grown to
// OUT_BYTES if the output is larger, and writes OUT_BYTES of that memory to OUT through the CLI's
// atomic writer (a temporary file renamed over OUT). With FILES (more than 1), OUT is a folder and
// the same bytes go into FILES files in it, OUT/0.glb, OUT/1.glb, ..., each through the atomic
// writer, their sizes OUT_BYTES / FILES (the first OUT_BYTES % FILES one byte more): the floor of a
// conversion that writes that many files (a Sims 3 package's clips, one GLB each), whose
// temporary file, write and rename per file no converter can skip either. A `convert` also parses,
// checks and lays out; its time minus this one's is what those cost.
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

namespace {

bool parseCount(const char* text, unsigned long long& value) {
  char* end = nullptr;
  value = std::strtoull(text, &end, 10);
  return end != text && *end == '\0';
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long long outBytes = 0, files = 1;
  if ((argc != 4 && argc != 5) || !parseCount(argv[3], outBytes) || (argc == 5 && (!parseCount(argv[4], files) || files == 0))) {
    std::fprintf(stderr, "usage: process_floor IN OUT OUT_BYTES [FILES]\n");
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
  const std::string out = argv[2];
  size_t at = 0;
  for (unsigned long long f = 0; f < files; ++f) {
    const size_t size = static_cast<size_t>(outBytes / files + (f < outBytes % files ? 1 : 0));
    const std::string path = files == 1 ? out : out + "/" + std::to_string(f) + ".glb";
    if (auto written = rigport::platform::writeFileAtomic(path, std::span<const uint8_t>(owned.data() + at, size)); !written) {
      std::fprintf(stderr, "process_floor: %s\n", written.error().describe().c_str());
      return 1;
    }
    at += size;
  }
  return 0;
}
