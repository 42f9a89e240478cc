// Archive → one rig per model-block member (sluggers.md §2).
#include <fmt/format.h>

#include "core/byte_reader.hpp"
#include "formats/sluggers/sluggers.hpp"

namespace rigport::sluggers {
namespace {

constexpr uint32_t kMaxArchiveMembers = 1000;  // §2: a first word above 1000 is something else
constexpr uint32_t kAnmVersions[] = {0x01321AFD, 0x013240DB};  // §2/§7: Sluggers ANM bank versions

struct Member {
  uint32_t slot = 0;
  size_t offset = 0, size = 0;
};

bool isAnm(std::span<const uint8_t> b) {
  ByteReader r(b, Endian::Big);
  const auto version = r.u32("version");
  return version && (*version == kAnmVersions[0] || *version == kAnmVersions[1]);
}

// The populated members, each checked: inside the file, after the table, 32-aligned, ascending.
Result<std::vector<Member>> members(std::span<const uint8_t> bytes, Budget* budget) {
  ByteReader r(bytes, Endian::Big);
  r.setBudget(budget);
  RP_ASSIGN(const uint32_t count, r.u32("fileCount"));
  if (count == 0 || count > kMaxArchiveMembers) {
    return r.errorAt(0, ErrorCode::BadValue, fmt::format("fileCount {} (an archive holds 1..{})", count, kMaxArchiveMembers), "fileCount");
  }
  RP_CHECK(r.count(count, 4, "fileCount"));
  std::vector<Member> out;
  const size_t tableEnd = 4 + size_t(count) * 4;
  for (uint32_t i = 0; i < count; ++i) {
    RP_ASSIGN(const uint32_t offset, r.u32(Field("offset", i)));
    if (offset == 0) continue;  // an empty slot
    const size_t previous = out.empty() ? tableEnd : out.back().offset + 1;
    if (offset < previous || offset >= bytes.size() || offset % 32 != 0) {
      return r.errorAt(r.position() - 4, ErrorCode::BadValue,
                       fmt::format("member offset 0x{:X}: members lie after the table, inside the 0x{:X}-byte file, ascending, on "
                                   "32-byte boundaries",
                                   offset, bytes.size()),
                       Field("offset", i));
    }
    out.push_back({i, offset, 0});
  }
  for (size_t k = 0; k < out.size(); ++k) out[k].size = (k + 1 < out.size() ? out[k + 1].offset : bytes.size()) - out[k].offset;
  return out;
}

std::span<const uint8_t> bytesOf(std::span<const uint8_t> bytes, const Member& m) { return bytes.subspan(m.offset, m.size); }

}  // namespace

bool probeArchive(std::span<const uint8_t> bytes) {
  if (bytes.size() < 8) return false;
  auto list = members(bytes, nullptr);
  if (!list || list->empty()) return false;
  const auto first = bytesOf(bytes, list->front());
  return probeModel(first) || isAnm(first);
}

Result<std::vector<ItemInfo>> listArchive(const Source& source, ReadContext& ctx) {
  const auto bytes = source.bytes();
  RP_ASSIGN(const std::vector<Member> list, members(bytes, &ctx.budget()));
  std::vector<ItemInfo> items;
  for (const Member& m : list) {
    const auto b = bytesOf(bytes, m);
    const char* kind = probeModel(b) ? "rig" : isAnm(b) ? "clip bank" : "unknown";
    items.push_back(ItemInfo{std::to_string(m.slot), kind, "", m.size});
  }
  return items;
}

Result<Asset> readArchive(const Source& source, ReadContext& ctx) {
  const auto bytes = source.bytes();
  RP_ASSIGN(const std::vector<Member> list, members(bytes, &ctx.budget()));
  Asset asset;
  asset.provenance.format = "sluggers-archive";
  size_t anm = 0, other = 0;
  for (const Member& m : list) {
    const auto b = bytesOf(bytes, m);
    if (!probeModel(b)) {
      ++(isAnm(b) ? anm : other);
      continue;
    }
    // Its meshes are handed over (ReadOptions::meshBuilt) as those of the rig it becomes in the asset.
    ReadContext memberCtx = ctx;
    if (ctx.options.meshBuilt) {
      memberCtx.options.meshBuilt = [&ctx, r = asset.rigs.size()](Rig& rig, size_t, size_t mesh) { return ctx.options.meshBuilt(rig, r, mesh); };
    }
    auto rig = readModel(b, memberCtx);
    if (!rig) {
      Error e = rig.error();
      e.within(ErrorFrame{fmt::format("member {}", m.slot), m.offset});
      return e;
    }
    // Members may share a GEO name (convert writes one file per rig name): the slot comes first.
    rig->name = rig->name.empty() ? fmt::format("member_{}", m.slot) : fmt::format("{}_{}", m.slot, rig->name);
    asset.rigs.push_back(std::move(*rig));
  }
  if (anm > 0) asset.provenance.warn("sluggers-anm-not-read", fmt::format("{} ANM bank members are not read (sluggers.md §7)", anm));
  if (other > 0) asset.provenance.warn("sluggers-member-skipped", fmt::format("{} members are neither model blocks nor ANM banks; skipped", other));
  if (asset.rigs.empty() && anm == 0) {
    Error e = makeError(ErrorCode::Unsupported, "the archive holds no model block");
    e.offset = 0;
    return e;
  }
  return asset;
}

}  // namespace rigport::sluggers
