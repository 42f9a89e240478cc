// bench_inputs DIR: writes the benchmarks' synthetic inputs (bench/inputs.hpp) as files, for the
// whole-process measurements of scripts/bench_process.sh: skinned.dff, skinned.psg, block.sluggers, unit.drs,
// package.ifp (and its skeleton ifp_skeleton.dff), the Sims 3 clip100k.clip, small.clip and
// package500.package and package5000.package, long.anm (and its skeleton anm_skeleton.dff),
// textured.dff with the TXD of its six DXT textures beside it, textured.txd (bench/texture_inputs.hpp).
// Exit 1 when one cannot be built or written.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "inputs.hpp"
#include "texture_inputs.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bench_inputs DIR\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
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
    std::ofstream out(dir / name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes->data()), static_cast<std::streamsize>(bytes->size()));
    if (bytes->empty() || !out) {
      std::fprintf(stderr, "bench_inputs: cannot build or write %s\n", name);
      return 1;
    }
    std::printf("%s\t%zu bytes\n", (dir / name).c_str(), bytes->size());
  }
  return 0;
}
