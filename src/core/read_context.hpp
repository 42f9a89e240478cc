// ReadOptions and ReadContext: what a reader may use besides its bytes. The options bound the work
// a hostile file can cause (memory, container depth, item count); the context carries the per-file
// budget and, where the caller allows them, a way to open a sibling file (the .ska beside a .drs,
// a RIG in another package) and a way to hand an inner resource to another format's reader without
// including that format's folder (formats meet only in the model; formats/registry.cpp wires it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include "core/asset.hpp"
#include "core/budget.hpp"
#include "core/byte_reader.hpp"
#include "core/error.hpp"
#include "core/hierarchy_manifest.hpp"
#include "core/source.hpp"

namespace rigport {

class RigStorage;  // core/rig_storage.hpp

struct ReadOptions {
  uint64_t memoryLimit = Budget::kDefaultLimit;  // per file: every allocation sized from file data
  uint32_t maxDepth = 8;                         // containers within containers
  uint32_t maxItems = 1u << 20;                  // entries of one container
  // Bone parents for formats that store none (RW4 arenas): `--hierarchy FILE`. Null: none given.
  std::shared_ptr<const BoneParentMap> boneParents;
  // For a caller that wants a file's meshes one at a time and never the whole model (`info`): a
  // reader that builds its meshes one by one (the DFF, RW4 arena, DRS and Sluggers model readers)
  // calls it as soon as mesh `mesh` of `rig` is complete and has passed the structure checks, and
  // the callback may then empty it (arrays and parts; name and attachBone stay). `rigIndex` is the
  // rig's place in the Asset the read returns (0 for a reader of one rig). Such a reader also gives
  // back the file's bytes it is done with (ReadContext::releaseBytes) and its parsed geometry once
  // used; the DFF, RW4 and Sluggers readers keep no more of either than the mesh in hand needs (a
  // Sluggers block's skin records until its skinned mesh is built), the DRS reader decodes all its
  // blocks first. Its warnings and errors are the ordinary read's. Null: the whole model, as usual.
  std::function<Status(Rig& rig, size_t rigIndex, size_t mesh)> meshBuilt;
  // For a caller that wants a file's skeletons only (`--skeleton FILE#ITEM`): a container reader
  // skips its clips and textures without decoding them (in a Sims 3 package, decompressing and
  // decoding every clip is nearly all the work of reading it).
  bool skeletonsOnly = false;
  // For a caller that converts a container's clip sets one at a time and never holds them all
  // (`convert` of a Sims 3 package): a reader that decodes its clip resources one by one (the
  // package reader) reads its rigs first, then calls it for each clip set as soon as it is decoded,
  // with `sofar` holding the rigs and the file-level warnings read so far and, in `sofar.clips`,
  // that one clip set, already named and stamped as the read's Asset would have it. `clipIndex` is
  // the resource's place among the file's `clipCount` clip resources; a damaged one is skipped with
  // its warning, as usual, and never handed. The callback takes the clip set; an animation it
  // leaves in `sofar.clips` is storage the reader may decode the next clip's keys into (an
  // animation played and written: its key arrays are used again, not freed and allocated anew),
  // the rest is dropped. The reader then gives back the budget the clip's decoding charged
  // and the clip's stored bytes (releaseBytes), so the read's memory is bounded by its largest
  // clip, not the file. An error the callback returns ends the read.
  // The read's Asset then holds no clip set of those resources. Null: every clip set in the Asset.
  std::function<Status(Asset& sofar, size_t clipIndex, size_t clipCount)> clipsRead;
  // For a caller that needs an animation's counts, not its keys (`info`, and the listing of a file's
  // clips): a reader that decodes a clip set's animations one by one (the GTA IFP and RenderWare
  // .anm readers) calls it with each, every one and in the set's order, as soon as it is decoded,
  // and gives back the file's bytes it was decoded from (releaseBytes); the Sims 3 CLIP reader,
  // whose one animation is the whole file, hands it over with its keys already let go as they were
  // counted (its stored key count is in its extras, as in a whole read). The callback may let the
  // animation's tracks, channels and events go; the reader keeps the animation in its set, so the
  // read's Asset holds every animation (named, warned about and charged to the budget as in a
  // whole read), and the read's memory is bounded by its largest animation. Null: every animation
  // kept whole.
  std::function<void(Animation& decoded)> animationRead;
  // For a program reading file after file: the arrays of the rigs it is done with (recycled into
  // it), for a reader to fill instead of allocating fresh ones (core/rig_storage.hpp says which
  // readers take from it). The caller keeps it alive through the read and uses it from one thread
  // at a time. Null: fresh arrays.
  RigStorage* storage = nullptr;
};

struct ReadContext {
  explicit ReadContext(ReadOptions opts = {}) : options(opts), budget_(std::make_shared<Budget>(opts.memoryLimit)) {}

  // A context for a resource inside this file: one level deeper, same budget, same permissions.
  ReadContext nested() const {
    ReadContext child = *this;
    ++child.depth;
    child.releaseBytes = nullptr;  // the inner bytes are not the file's
    child.options.clipsRead = nullptr;  // an inner file's clips are the container's, in its Asset
    child.options.animationRead = nullptr;
    return child;
  }

  // One budget per file, shared by the reads of every resource inside it.
  Budget& budget() const { return *budget_; }

  ReadOptions options;
  uint32_t depth = 0;  // 0 for a file; +1 for each container it is inside
  // Opens a file named relative to the one being read; empty when the caller forbids it.
  std::function<Result<std::shared_ptr<const Source>>(std::string_view relativePath)> openSibling;
  // How a nested read is done: the registry's readAsset (formats/registry.cpp sets it); null forbids.
  using FormatReader = Result<Asset> (*)(const Source& inner, ReadContext& ctx, std::string_view format);
  FormatReader formatReader = nullptr;
  // Hands back the memory under bytes of the source that the reader is done with (Source::release):
  // set for a file's own bytes, null for anything else.
  std::function<void(std::span<const uint8_t>)> releaseBytes;

  // Reads a container's inner resource with the named format's reader (detected from its bytes
  // when `format` is empty), one level deeper, charging the same budget. The error carries `frame`
  // (the entry, with its offset in the container) outside the inner reader's trail.
  Result<Asset> readNested(const Source& inner, std::string_view format, ErrorFrame frame) const;

  // The root cursor over a source's bytes, charging this context's budget.
  ByteReader reader(std::span<const uint8_t> bytes, Endian endian = Endian::Little) {
    ByteReader r(bytes, endian);
    r.setBudget(budget_.get());
    return r;
  }

 private:
  std::shared_ptr<Budget> budget_;
};

}  // namespace rigport
