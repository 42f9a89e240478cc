// bench_inputs DIR: writes the benchmarks' synthetic inputs (bench/inputs.hpp) as files, for the
// whole-process measurements of scripts/bench_process.sh: skinned.dff, skinned.psg, block.sluggers, unit.drs,
// package.ifp (and its skeleton ifp_skeleton.dff), the Sims 3 clip100k.clip, small.clip and
// package500.package and package5000.package, long.anm (and its skeleton anm_skeleton.dff),
// textured.dff with the TXD of its six DXT textures beside it, textured.txd (bench/texture_inputs.hpp).
// `bench_inputs DIR --dff-atomics N` writes only skinned_N.dff, the DFF with N atomics, for the
// size-scaling rows (BENCHMARKS.md). Exit 1 when one cannot be built or written.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "inputs.hpp"
#include "texture_inputs.hpp"

namespace {

bool write(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (bytes.empty() || !out) {
    std::fprintf(stderr, "bench_inputs: cannot build or write %s\n", path.c_str());
    return false;
  }
  std::printf("%s\t%zu bytes\n", path.c_str(), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // A DIR that starts with '-' is an option mistyped (`--help`), not a folder to make.
  if ((argc != 2 && !(argc == 4 && std::string(argv[2]) == "--dff-atomics")) || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: bench_inputs DIR\n       bench_inputs DIR --dff-atomics N   (only skinned_N.dff, 2.37 MB an atomic)\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  if (argc == 4) {
    const int atomics = std::atoi(argv[3]);
    auto bytes = rigport::bench::skinnedDffOf(atomics);
    return atomics > 0 && bytes && write(dir / ("skinned_" + std::to_string(atomics) + ".dff"), *bytes) ? 0 : 1;
  }
  const std::pair<const char*, const std::vector<uint8_t>*> files[] = {
      {"skinned.dff", &rigport::bench::skinnedDff()},
      {"skinned.psg", &rigport::bench::skinnedArena()},
      {"block.sluggers", &rigport::bench::sluggersBlock()},
      {"unit.drs", &rigport::bench::battleforgeDrs()},
      {"package.ifp", &rigport::bench::ifpPackage()},
      {"ifp_skeleton.dff", &rigport::bench::ifpSkeletonDff()},
      {"clip100k.clip", &rigport::bench::sims3Clip100k()},
      {"small.clip", &rigport::bench::sims3ClipSmall()},
      {"package500.package", &rigport::bench::sims3Package500()},
      {"package5000.package", &rigport::bench::sims3Package5000()},
      {"long.anm", &rigport::bench::anmLong()},
      {"anm_skeleton.dff", &rigport::bench::anmSkeletonDff()},
      {"textured.dff", &rigport::bench::texturedDff()},
      {"textured.txd", &rigport::bench::texturedTxd()},
  };
  for (const auto& [name, bytes] : files) {
    if (!write(dir / name, *bytes)) return 1;
  }
  return 0;
}
