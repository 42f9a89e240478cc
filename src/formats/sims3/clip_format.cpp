// CLIP entry points: probe, read into a clip set, write from the model.
#include <fmt/format.h>

#include "formats/sims3/clip_file.hpp"
#include "formats/sims3/clip_layout.hpp"
#include "formats/sims3/clip_model.hpp"
#include "formats/sims3/sims3.hpp"

namespace rigport::sims3 {

bool probeClip(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  auto type = r.u32("type");
  return type && *type == clip::kType && bytes.size() >= clip::kOuterHeaderSize;
}

namespace {

Result<ClipSet> read(std::span<const uint8_t> bytes, ReadContext& ctx, ClipStorage* storage) {
  ByteReader r = ctx.reader(bytes);
  ClipSet clips;
  clips.provenance.format = "sims3-clip";  // TS3 is metres, +Y up, facing +Z: glTF's axes (§2.11)
  RP_ASSIGN(ClipFile file, parseClip(r, clips.provenance, storage != nullptr ? &storage->file : nullptr));
  clips.name = file.name;
  // A caller that keeps counts, not keys (ReadOptions::animationRead: `info`, the listing of a
  // file's clips) is handed the clip with its keys counted and let go as they were decoded, and
  // the file's pages (where it is mapped) go back first: the parsed clip holds copies.
  const bool counted = static_cast<bool>(ctx.options.animationRead);
  if (counted && ctx.releaseBytes) ctx.releaseBytes(bytes);
  clips.animations.push_back(clipToAnimation(file, clips.provenance, storage != nullptr ? &storage->animation : nullptr, counted));
  if (counted) ctx.options.animationRead(clips.animations.back());
  if (storage != nullptr) storage->file = std::move(file);
  return clips;
}

}  // namespace

Result<ClipSet> readClip(std::span<const uint8_t> bytes, ReadContext& ctx) { return read(bytes, ctx, nullptr); }

Result<ClipSet> readClipInto(std::span<const uint8_t> bytes, ReadContext& ctx, ClipStorage& storage) { return read(bytes, ctx, &storage); }

Result<std::vector<uint8_t>> writeClipAnimation(const Animation& anim, const Skeleton* skeleton) {
  RP_ASSIGN(const ClipFile clip, animationToClip(anim, skeleton));
  return serializeClip(clip);
}

Result<std::vector<uint8_t>> writeClip(const Rig& rig) {
  if (rig.animations.size() != 1) {
    return makeError(ErrorCode::Usage, fmt::format("a CLIP holds one animation and the rig has {}; write a .package for several",
                                                   rig.animations.size()));
  }
  return writeClipAnimation(rig.animations.front(), &rig.skeleton);
}

}  // namespace rigport::sims3
