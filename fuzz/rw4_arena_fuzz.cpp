// libFuzzer target for the RW4 arena reader (rw4_arena.md): any bytes → readArena returns an Asset
// or an Error; every rig read must survive export and the JSON report (downstream.hpp), and one the
// writer accepts must read back with the same bones. Seeds: tests/data/samples/rw4/*.psg, *.rw4.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "downstream.hpp"
#include "formats/rw4/rw4.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto source = rigport::Source::fromBytes(std::vector<uint8_t>(data, data + size), "fuzz.psg");
  rigport::ReadContext ctx;
  auto asset = rigport::rw4::readArena(*source, ctx);
  if (!asset) return 0;
  for (const rigport::Rig& rig : asset->rigs) {
    rigport::fuzz::exerciseDownstream(rig);
    auto bytes = rigport::rw4::writeArena(rig);
    if (!bytes) continue;  // refused: what an arena cannot hold (no bones, unprintable names, ...)
    const auto again = rigport::Source::fromBytes(std::move(*bytes), "again.psg");
    rigport::ReadContext ctx2;
    auto back = rigport::rw4::readArena(*again, ctx2);
    if (!back || back->rigs.size() != 1) std::abort();  // our own output must read back
    if (back->rigs[0].skeleton.bones.size() != rig.skeleton.bones.size()) std::abort();
  }
  return 0;
}
