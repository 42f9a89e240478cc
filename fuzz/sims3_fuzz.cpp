// libFuzzer target for The Sims 3 readers: CLIP, RIG and DBPF package (with RefPack), each given
// the same bytes, and the writers on what reads (sims3_clip.md). Seeds: tests/data/samples/sims3/.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/source.hpp"
#include "downstream.hpp"
#include "formats/sims3/refpack.hpp"
#include "formats/sims3/sims3.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace rigport;
  const std::span<const uint8_t> bytes(data, size);
  ReadOptions options;
  options.memoryLimit = 64u << 20;
  {
    ReadContext ctx(options);
    auto clips = sims3::readClip(bytes, ctx);
    if (clips) {
      (void)sims3::writeClipAnimation(clips->animations.front(), nullptr);
      fuzz::exerciseDownstream(*clips);
    }
  }
  {
    ReadContext ctx(options);
    auto rig = sims3::readRig(bytes, ctx);
    if (rig) {
      (void)sims3::writeRig(*rig);
      fuzz::exerciseDownstream(*rig);
    }
  }
  {
    ReadContext ctx(options);
    auto source = Source::fromBytes(std::vector<uint8_t>(bytes.begin(), bytes.end()), "fuzz.package");
    (void)sims3::listPackage(*source, ctx);
    auto asset = sims3::readPackage(*source, ctx);
    if (asset) {
      for (const Rig& rig : asset->rigs) fuzz::exerciseDownstream(rig);
      for (const ClipSet& clips : asset->clips) fuzz::exerciseDownstream(clips);
    }
  }
  {
    ReadContext ctx(options);
    (void)sims3::refpackDecompress(ctx.reader(bytes));
  }
  return 0;
}
