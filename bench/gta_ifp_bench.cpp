// IFP read throughput on a generated ANPK package (renderware.md §4.1) the size of a large game
// package: 1,000 animations x 32 tracks x 30 keys, alternating KRT0 (rotation + translation) and
// KR00 (rotation) tracks, 44-byte (Vice City) ANIM records.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>

#include "core/bind.hpp"
#include "core/byte_writer.hpp"
#include "export/gltf.hpp"
#include "formats/renderware/anim_io.hpp"
#include "formats/renderware/rw_axes.hpp"
#include "bench_main.hpp"
#include "memcpy_ceiling.hpp"

namespace {

constexpr int kAnimations = 1000;
constexpr int kTracks = 32;
constexpr int kKeys = 30;

// Tagged block `char tag[4], u32 size`; returns the size field position for patching.
size_t beginBlock(rigport::ByteWriter& w, const char* tag) {
  w.fixedString(tag, 4);
  const size_t at = w.size();
  w.u32(0);
  return at;
}
void endBlock(rigport::ByteWriter& w, size_t at) { w.patchU32(at, static_cast<uint32_t>(w.size() - at - 4)); }

// A NUL-terminated string whose size field holds strlen + 1 and whose payload is padded to 4.
void stringBlock(rigport::ByteWriter& w, const char* tag, const std::string& text, const int32_t* prefix) {
  w.fixedString(tag, 4);
  w.u32(static_cast<uint32_t>(text.size() + 1 + (prefix ? 4 : 0)));
  if (prefix) w.s32(*prefix);
  w.cString(text);
  w.align(4);
}

std::vector<uint8_t> makeAnpk() {
  rigport::ByteWriter w;
  const size_t pkg = beginBlock(w, "ANPK");
  const int32_t numAnims = kAnimations;
  stringBlock(w, "INFO", "bench", &numAnims);
  for (int a = 0; a < kAnimations; ++a) {
    stringBlock(w, "NAME", "anim_" + std::to_string(a), nullptr);
    const size_t dgan = beginBlock(w, "DGAN");
    const size_t info = beginBlock(w, "INFO");
    w.s32(kTracks);
    w.s32(0);
    endBlock(w, info);
    for (int t = 0; t < kTracks; ++t) {
      const bool translation = t % 2 == 0;
      const size_t cpan = beginBlock(w, "CPAN");
      const size_t anim = beginBlock(w, "ANIM");
      w.fixedString("bone_" + std::to_string(t), 28);
      w.s32(kKeys);
      w.s32(0);
      w.s32(kKeys - 1);
      w.s32(t);
      endBlock(w, anim);
      const size_t keys = beginBlock(w, translation ? "KRT0" : "KR00");
      for (int k = 0; k < kKeys; ++k) {
        const float angle = 0.01f * static_cast<float>(a + t + k);
        w.f32(0.0f);
        w.f32(0.0f);
        w.f32(-std::sin(angle));
        w.f32(std::cos(angle));
        if (translation) {
          w.f32(0.1f * static_cast<float>(k));
          w.f32(0.0f);
          w.f32(1.0f);
        }
        w.f32(static_cast<float>(k) / 30.0f);
      }
      endBlock(w, keys);
      endBlock(w, cpan);
    }
    endBlock(w, dgan);
  }
  endBlock(w, pkg);
  return w.take();
}

void BM_ReadIfp(benchmark::State& state) {
  const std::vector<uint8_t> bytes = makeAnpk();
  size_t keys = 0;
  for (auto _ : state) {
    auto rig = rigport::renderware::readIfp(bytes);
    if (!rig) {
      state.SkipWithError(rig.error().describe().c_str());
      return;
    }
    keys = 0;  // key records in the file (one per time, whatever channels it carries)
    for (const auto& anim : rig->animations)
      for (const auto& track : anim.tracks) keys += track.rotation.times.size();
    benchmark::DoNotOptimize(rig);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes.size()));
  state.counters["keys/s"] = benchmark::Counter(static_cast<double>(keys) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["file_MB"] = static_cast<double>(bytes.size()) / 1e6;
}
BENCHMARK(BM_ReadIfp)->Unit(benchmark::kMillisecond);

// The skeleton the package animates: bone_<t> with HAnim id t, in a chain.
rigport::Rig makeSkeleton() {
  rigport::Rig rig;
  rig.provenance.axes = rigport::renderware::kRenderWareAxes;
  for (int t = 0; t < kTracks; ++t) {
    rigport::Bone b;
    b.name = "bone_" + std::to_string(t);
    b.parent = t - 1;
    b.translation = {0.0f, 0.0f, 0.1f};
    b.id = static_cast<uint32_t>(t);
    rig.skeleton.bones.push_back(b);
  }
  return rig;
}

// What `rigport convert skeleton.dff --anim package.ifp` does after loading: read the package,
// bind every track by bone id, export all 1,000 clips into one .glb.
void BM_ReadIfpAndExportGlb(benchmark::State& state) {
  const std::vector<uint8_t> bytes = makeAnpk();
  const rigport::Rig skeleton = makeSkeleton();
  size_t glbBytes = 0;
  for (auto _ : state) {
    auto package = rigport::renderware::readIfp(bytes);
    if (!package) {
      state.SkipWithError(package.error().describe().c_str());
      return;
    }
    rigport::Rig rig = skeleton;
    if (auto bound = rigport::bindAnimations(rig, std::move(package->animations)); !bound) {
      state.SkipWithError(bound.error().describe().c_str());
      return;
    }
    auto glb = rigport::exportGlb(rig);
    if (!glb) {
      state.SkipWithError(glb.error().describe().c_str());
      return;
    }
    glbBytes = glb->size();
    benchmark::DoNotOptimize(glb);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes.size()));
  state.counters["glb_MB"] = static_cast<double>(glbBytes) / 1e6;
}
BENCHMARK(BM_ReadIfpAndExportGlb)->Unit(benchmark::kMillisecond);

// memcpy of the same package bytes: the ceiling the rows above are reported against.
void BM_MemcpyIfpBytes(benchmark::State& state) { rigport::bench::memcpyCeiling(state, makeAnpk()); }
BENCHMARK(BM_MemcpyIfpBytes)->Unit(benchmark::kMillisecond);

}  // namespace

RIGPORT_BENCHMARK_MAIN()
