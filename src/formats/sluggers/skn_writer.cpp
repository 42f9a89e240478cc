// Rig skin → SKN section (sluggers.md §6): SK1 for single-bone runs, SK2 for two-bone runs, SKAcc
// for the rest, the mirror of skn_reader.cpp.
//
// Not laid out for the runtime's locked cache: the runtime stores whole 32-byte lines, so vanilla
// blocks keep SK1/SK2 runs on lines of their own with gap slots between them (§6 layout facts).
// rigport keeps the rig's vertex order instead (a converter's round trip needs it), so a written
// block is exact for readers but two runs sharing a line would clobber each other in the game.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/byte_writer.hpp"
#include "core/quant.hpp"
#include "formats/sluggers/model_layout.hpp"
#include "formats/sluggers/writer_parts.hpp"

namespace rigport::sluggers {

std::vector<Weighted> quantizeWeights(const Mesh& mesh, size_t v) {
  std::map<uint32_t, double> merged;
  double total = 0.0;
  for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i) {
    const Influence& inf = mesh.influences[i];
    if (!(inf.weight > 0.0f)) continue;
    merged[inf.bone] += inf.weight;
    total += inf.weight;
  }
  std::vector<Weighted> out;
  if (total <= 0.0) return out;
  std::vector<std::pair<double, size_t>> remainders;
  uint32_t used = 0;
  for (const auto& [bone, w] : merged) {
    const double exact = w / total * kFullWeight;
    const uint32_t floor = static_cast<uint32_t>(exact);
    remainders.emplace_back(exact - floor, out.size());
    out.push_back({bone, floor});
    used += floor;
  }
  std::stable_sort(remainders.begin(), remainders.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; used < kFullWeight; ++k, ++used) out[remainders[k % remainders.size()].second].w += 1;
  std::erase_if(out, [](const Weighted& x) { return x.w == 0; });
  return out;
}

namespace {

struct Run {
  uint32_t first = 0, count = 0;
  uint32_t bone0 = 0, bone1 = 0;
};

// Splits a run into entries of at most `max` vertices, none shorter than kMinSkRun; what cannot
// make such an entry is returned in `leftover`.
void splitRun(Run run, uint32_t max, std::vector<Run>& entries, std::vector<uint32_t>& leftover) {
  while (run.count > 0) {
    if (run.count < kMinSkRun) {
      for (uint32_t k = 0; k < run.count; ++k) leftover.push_back(run.first + k);
      return;
    }
    uint32_t n = std::min(run.count, max);
    if (run.count - n > 0 && run.count - n < kMinSkRun) n = run.count - kMinSkRun;
    entries.push_back({run.first, n, run.bone0, run.bone1});
    run.first += n;
    run.count -= n;
  }
}

// vertDst and vertSrcOffset for a run starting at vertex v: the destination on a 32-byte line, the
// offset where the first whole vertex starts in it (§6).
std::pair<uint32_t, uint8_t> destination(uint32_t v) {
  const uint32_t byte = v * kSkinVertexBytes;
  const uint32_t dst = byte & ~uint32_t(kSectionAlignment - 1);
  return {dst, static_cast<uint8_t>(byte - dst)};
}

}  // namespace

Result<std::vector<uint8_t>> writeSkn(const Mesh& mesh, const std::vector<uint16_t>& boneIndex, uint8_t shift,
                                      const std::vector<uint8_t>& mirror) {
  const uint32_t nv = static_cast<uint32_t>(mesh.positions.size());
  std::vector<std::vector<Weighted>> weights(nv);
  for (uint32_t v = 0; v < nv; ++v) weights[v] = quantizeWeights(mesh, v);

  std::vector<Run> sk1, sk2;
  std::vector<uint32_t> acc;  // vertices written by SKAcc alone
  for (uint32_t v = 0; v < nv;) {
    const auto& wv = weights[v];
    if (wv.empty() || wv.size() > 2) {
      if (!wv.empty()) acc.push_back(v);
      ++v;
      continue;
    }
    Run run{v, 0, wv[0].bone, wv.size() == 2 ? wv[1].bone : 0};
    auto same = [&](uint32_t u) {
      const auto& wu = weights[u];
      return wu.size() == wv.size() && wu[0].bone == run.bone0 && (wu.size() == 1 || wu[1].bone == run.bone1);
    };
    while (v < nv && same(v)) ++v, ++run.count;
    splitRun(run, wv.size() == 1 ? kMaxSk1Run : kMaxSk2Run, wv.size() == 1 ? sk1 : sk2, acc);
  }
  std::sort(acc.begin(), acc.end());

  // SKAcc: one record per (vertex, bone); a full weight of 256 is written as 255 + 1 (§6).
  std::map<uint32_t, std::vector<std::pair<uint32_t, uint8_t>>> byBone;
  for (uint32_t v : acc) {
    for (const Weighted& x : weights[v]) {
      if (x.w == kFullWeight) {
        byBone[x.bone].emplace_back(v, 255);
        byBone[x.bone].emplace_back(v, 1);
      } else {
        byBone[x.bone].emplace_back(v, static_cast<uint8_t>(x.w));
      }
    }
  }
  struct AccEntry {
    uint32_t bone;
    std::vector<std::pair<uint32_t, uint8_t>> records;
  };
  std::vector<AccEntry> skAcc;
  for (auto& [bone, records] : byBone) {
    for (size_t first = 0; first < records.size(); first += 0xFFFF) {
      const size_t n = std::min<size_t>(0xFFFF, records.size() - first);
      skAcc.push_back({bone, {records.begin() + first, records.begin() + first + n}});
    }
  }
  if (sk1.size() > 0xFFFF || sk2.size() > 0xFFFF || skAcc.size() > 0xFFFF) {
    return invalidModel("skin", "more than 65535 SK entries of one kind");
  }

  auto align = [](size_t v) { return (v + kSectionAlignment - 1) / kSectionAlignment * kSectionAlignment; };
  const size_t sk1At = align(kSknHeaderSize);
  const size_t sk2At = sk1At + sk1.size() * kSk1Size;
  const size_t accAt = sk2At + sk2.size() * kSk2Size;
  const size_t mirrorAt = align(accAt + skAcc.size() * kSkAccSize);  // §6: vertSrc = align32(end of SKAcc array) + vertDst
  size_t at = align(mirrorAt + mirror.size());
  std::vector<size_t> sk2Weights(sk2.size());
  for (size_t i = 0; i < sk2.size(); ++i) {
    sk2Weights[i] = at;
    at = align(at + 2 * sk2[i].count);
  }
  struct AccArrays {
    size_t indices, weights, sources;
  };
  std::vector<AccArrays> accArrays(skAcc.size());
  for (size_t i = 0; i < skAcc.size(); ++i) {
    const size_t n = skAcc[i].records.size();
    accArrays[i].indices = at;
    accArrays[i].weights = align(at + 2 * n);
    accArrays[i].sources = align(accArrays[i].weights + n);
    at = align(accArrays[i].sources + n * kSkinVertexBytes);
  }
  const size_t flushAt = at;

  ByteWriter w(Endian::Big);
  w.reserve(flushAt + acc.size() * 2 + 32);
  w.u16(static_cast<uint16_t>(sk1.size()));
  w.u16(static_cast<uint16_t>(sk2.size()));
  w.u16(static_cast<uint16_t>(skAcc.size()));
  w.u8(shift);
  w.u8(0);
  w.u32(sk1.empty() ? 0 : static_cast<uint32_t>(sk1At));
  w.u32(sk2.empty() ? 0 : static_cast<uint32_t>(sk2At));
  w.u32(skAcc.empty() ? 0 : static_cast<uint32_t>(accAt));
  // skBzero: the destination span SKAcc accumulates into, zeroed first by the runtime (§6 step 3).
  const uint32_t bzeroBase = acc.empty() ? 0 : destination(acc.front()).first;
  const uint32_t bzeroEnd = acc.empty() ? 0 : static_cast<uint32_t>(align((acc.back() + 1) * kSkinVertexBytes));
  w.u32(bzeroBase);
  w.u32(bzeroEnd - bzeroBase);
  w.u32(acc.empty() ? 0 : static_cast<uint32_t>(flushAt));
  w.u32(static_cast<uint32_t>(acc.size()));
  w.align(kSectionAlignment);
  for (const Run& r : sk1) {
    const auto [dst, offset] = destination(r.first);
    w.zeros(0x30);  // runtime matrix
    w.u32(static_cast<uint32_t>(mirrorAt + dst));
    w.u32(dst);
    w.u16(boneIndex[r.bone0]);
    w.u16(static_cast<uint16_t>(r.count));
    w.u8(offset);
    w.zeros(3);
  }
  for (size_t i = 0; i < sk2.size(); ++i) {
    const Run& r = sk2[i];
    const auto [dst, offset] = destination(r.first);
    w.zeros(0x60);  // two runtime matrices
    w.u32(static_cast<uint32_t>(mirrorAt + dst));
    w.u32(static_cast<uint32_t>(sk2Weights[i]));
    w.u32(dst);
    w.u16(boneIndex[r.bone0]);
    w.u16(boneIndex[r.bone1]);
    w.u16(static_cast<uint16_t>(r.count));
    w.u8(offset);
    w.u8(0);
  }
  for (size_t i = 0; i < skAcc.size(); ++i) {
    w.zeros(0x30);
    w.u32(static_cast<uint32_t>(accArrays[i].sources));
    w.u32(static_cast<uint32_t>(accArrays[i].indices));
    w.u32(0);  // §6: vertDst is always 0 in vanilla data
    w.u32(static_cast<uint32_t>(accArrays[i].weights));
    w.u16(boneIndex[skAcc[i].bone]);
    w.u16(static_cast<uint16_t>(skAcc[i].records.size()));
  }
  w.align(kSectionAlignment);
  w.raw(mirror);
  w.align(kSectionAlignment);
  for (size_t i = 0; i < sk2.size(); ++i) {
    for (uint32_t k = 0; k < sk2[i].count; ++k) {
      const auto& wv = weights[sk2[i].first + k];
      w.u8(static_cast<uint8_t>(wv[0].w));
      w.u8(static_cast<uint8_t>(wv[1].w));
    }
    w.align(kSectionAlignment);
  }
  for (size_t i = 0; i < skAcc.size(); ++i) {
    for (const auto& rec : skAcc[i].records) w.u16(static_cast<uint16_t>(rec.first));
    w.align(kSectionAlignment);
    for (const auto& rec : skAcc[i].records) w.u8(rec.second);
    w.align(kSectionAlignment);
    for (const auto& rec : skAcc[i].records) w.raw(std::span(mirror).subspan(size_t(rec.first) * kSkinVertexBytes, kSkinVertexBytes));
    w.align(kSectionAlignment);
  }
  // Flush list: the SKAcc destinations (§6 step 4, cache maintenance only).
  for (uint32_t v : acc) w.u16(static_cast<uint16_t>(v));
  w.align(kSectionAlignment);
  return w.take();
}

}  // namespace rigport::sluggers
