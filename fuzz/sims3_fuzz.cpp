// libFuzzer target for The Sims 3 readers: CLIP, RIG and DBPF package (with RefPack), each given
// the same bytes, and the writers on what reads (sims3_clip.md); a package read handing its clips
// on one by one reads as a whole read does. Seeds: tests/data/samples/sims3/.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
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
    // Handing its clips on one by one (ReadOptions::clipsRead, what `convert` does), the package
    // reads as a whole: the same rigs, clips in the same order, the same warnings in the same order.
    // Unless the whole read ran out of budget: handing clips on gives each clip's budget back.
    ReadOptions handing = options;
    std::vector<std::string> handed;
    handing.clipsRead = [&](Asset& sofar, size_t, size_t) -> Status {
      if (sofar.clips.size() != 1) std::abort();
      handed.push_back(sofar.clips.front().name);
      return Ok{};
    };
    ReadContext handingContext(handing);
    auto byClip = sims3::readPackage(*source, handingContext);
    // (The whole read's budget also paid for listPackage's.)
    const auto budgetSaid = [](const std::string& message) { return message.find("budget") != std::string::npos; };
    const bool outOfBudget = ctx.budget().used() + (64u << 10) > options.memoryLimit ||
                             (asset ? std::any_of(asset->provenance.warnings.begin(), asset->provenance.warnings.end(),
                                                  [&](const Warning& w) { return budgetSaid(w.message); })
                                    : budgetSaid(asset.error().describe()));
    if (!outOfBudget) {
      if (byClip.ok() != asset.ok()) std::abort();
      if (asset) {
        if (handed.size() != asset->clips.size() || !byClip->clips.empty() || byClip->rigs.size() != asset->rigs.size()) std::abort();
        for (size_t c = 0; c < handed.size(); ++c) {
          if (handed[c] != asset->clips[c].name) std::abort();
        }
        const auto& a = asset->provenance.warnings;
        const auto& b = byClip->provenance.warnings;
        if (!std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Warning& x, const Warning& y) { return x.code == y.code && x.message == y.message && x.count == y.count; })) {
          std::abort();
        }
      }
    }
  }
  {
    ReadContext ctx(options);
    (void)sims3::refpackDecompress(ctx.reader(bytes));
  }
  return 0;
}
