// .anm reader: a sequence of Anim Animation chunks 0x1B, interpolator types 1 and 2
// (renderware.md §1.10). Each chunk becomes one Animation whose tracks name their node by
// position (the file carries no ids or names; bindAnimations() maps positions to HAnim nodes).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <memory>
#include <span>

#include "core/byte_swap.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/renderware/axes.hpp"
#include "formats/renderware/anm_layout.hpp"
#include "formats/renderware/chunk.hpp"
#include "formats/renderware/rw_half.hpp"

namespace rigport::renderware {
namespace {

// Type 1 key as stored: every field 4 bytes, so ByteReader::records swaps them as u32 words. A
// type 2 key is decoded into the same record, so both are read in one pass and kept in one copy
// (an intermediate copy of every key took a fifth of a long .anm's reading).
struct StandardKeyRecord {
  float time;
  float q[4];  // x, y, z, w
  float t[3];
  uint32_t prev;
};
static_assert(sizeof(StandardKeyRecord) == anm::kStandardKeySize);

// Type 2: RW half floats; the translation halves are normalised and only become positions with
// the offset/scalar pair that follows the key block.
Result<StandardKeyRecord> readCompressedKey(ByteReader& r) {
  StandardKeyRecord k;
  RP_ASSIGN(k.time, r.f32("time"));
  for (int i = 0; i < 4; ++i) {
    RP_ASSIGN(const uint16_t half, r.u16(Field("q", i)));
    k.q[i] = rwHalfToFloat(half);
  }
  for (int i = 0; i < 3; ++i) {
    RP_ASSIGN(const uint16_t half, r.u16(Field("t", i)));
    k.t[i] = rwHalfToFloat(half);
  }
  RP_ASSIGN(k.prev, r.u32("prevOffset"));
  return k;
}

// Node identity is positional (§1.10): the first numNodes keys start one node each and carry a
// junk prevOffset; every later key names the node's previous key (prevOffset / unit, counted from
// the start of the key block). A key chains to key j only if j is earlier, has no successor yet and
// is not later in time; while no key has chained yet a successor must be strictly later, so junk
// or zero prevOffsets of first keys (all at the start time) are not mistaken for links.
//
// A key with no successor yet is the last of its node's chain, so a node's last key and its time
// are all that linking needs of the keys before: type 1 keys read from the file in one pass are
// linked so, as they come, and need not be held (placeKeys links keys held in memory by the same
// rule from every earlier key, which is cheaper when they are at hand).
class NodeChains {
 public:
  explicit NodeChains(size_t numKeys) : node(numKeys) {}

  // Links type 1 key `i`; false when, once a key has chained, it names no earlier key awaiting its
  // next. The unit is a constant: prevOffset / unit is then no division.
  bool link(size_t i, float time, uint32_t prev) {
    const size_t j = prev / anm::kStandardKeySize;
    if (prev % anm::kStandardKeySize == 0 && j < i) {
      Last& last = last_[node[j]];
      if (last.key == j && time >= last.time && (chained_ || time > last.time)) {
        chained_ = true;
        node[i] = node[j];
        last = Last{i, time};
        return true;
      }
    }
    if (chained_) return false;
    node[i] = numNodes();
    last_.push_back(Last{i, time});
    return true;
  }
  uint32_t numNodes() const { return static_cast<uint32_t>(last_.size()); }

  std::vector<uint32_t> node;  // per key: the node it belongs to

 private:
  struct Last {
    size_t key;
    float time;
  };
  std::vector<Last> last_;  // per node: its last key so far
  bool chained_ = false;     // a key has chained: every later key must
};

// `n` type 1 keys from `from` into `keys`: copied as bytes (a file's records need not be aligned),
// then swapped word by word where the file's byte order is not the host's.
void copyStandardKeys(const uint8_t* from, size_t n, Endian endian, StandardKeyRecord* keys) {
  std::memcpy(static_cast<void*>(keys), from, n * sizeof(StandardKeyRecord));
  if ((endian == Endian::Big) != (std::endian::native == std::endian::big)) {
    auto* bytes = reinterpret_cast<uint8_t*>(keys);
    for (size_t i = 0; i < n * sizeof(StandardKeyRecord); i += sizeof(uint32_t)) {
      uint32_t v;
      std::memcpy(&v, bytes + i, sizeof v);
      v = byteSwap(v);
      std::memcpy(bytes + i, &v, sizeof v);
    }
  }
}

using ReleaseBytes = std::function<void(std::span<const uint8_t>)>;

// Where a node's next key goes in its arrays, through pointers of our own: with push_back the
// compiler loaded and stored every array's end per key, two thirds of the reading.
struct Next {
  float* time;
  glm::quat* rotation;
  glm::vec3* translation;
};

// Sizes a track's arrays to `n` keys; returns where its next key goes once `placed` are in.
Next sizeKeys(BoneTrack& t, size_t n, size_t placed) {
  t.rotation.times.resize(n);
  t.rotation.values.resize(n);
  t.translation.values.resize(n);
  return Next{t.rotation.times.data() + placed, t.rotation.values.data() + placed, t.translation.values.data() + placed};
}

void place(Next& to, const StandardKeyRecord& k) {
  *to.time++ = k.time;
  *to.rotation++ = glm::quat(k.q[3], k.q[0], k.q[1], k.q[2]);
  *to.translation++ = glm::vec3(k.t[0], k.t[1], k.t[2]);
}

// The error of key `i`, which links to no node once a key has chained.
using UnlinkedKey = std::function<Error(size_t i, uint32_t prev, uint32_t numNodes)>;

// Keys held in memory (`unit` the interpolator type's key size in memory), each node's by the rule
// above from every earlier key's time and whether it has a successor yet.
Result<std::vector<uint32_t>> assignNodes(std::span<const StandardKeyRecord> keys, size_t unit, const UnlinkedKey& unlinked,
                                          uint32_t* numNodes) {
  std::vector<uint32_t> node(keys.size());
  std::vector<uint8_t> hasSuccessor(keys.size(), 0);  // bytes, not vector<bool>'s bits: read and set per key
  bool chained = false;
  *numNodes = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint32_t prev = keys[i].prev;
    const size_t j = prev / unit;
    const bool links = prev % unit == 0 && j < i && !hasSuccessor[j] && keys[i].time >= keys[j].time &&
                       (chained || keys[i].time > keys[j].time);
    if (links) {
      chained = true;
      hasSuccessor[j] = 1;
      node[i] = node[j];
    } else if (!chained) {
      node[i] = (*numNodes)++;
    } else {
      return unlinked(i, prev, *numNodes);
    }
  }
  return node;
}

// Keys held in memory: each node's arrays sized to its keys, then each key placed.
Status placeKeys(std::span<const StandardKeyRecord> keys, size_t unit, const UnlinkedKey& unlinked, Animation& anim) {
  uint32_t numNodes = 0;
  RP_ASSIGN(const std::vector<uint32_t> node, assignNodes(keys, unit, unlinked, &numNodes));
  anim.tracks.resize(numNodes);
  std::vector<size_t> keysOfNode(numNodes, 0);
  for (const uint32_t k : node) ++keysOfNode[k];
  std::vector<Next> next(numNodes);
  for (uint32_t i = 0; i < numNodes; ++i) {
    BoneTrack& t = anim.tracks[i];
    t.target.position = i;
    next[i] = sizeKeys(t, keysOfNode[i], 0);
  }
  for (size_t i = 0; i < keys.size(); ++i) place(next[node[i]], keys[i]);
  return Ok{};
}

// For a caller that keeps counts, not keys (ReadOptions::animationRead): type 1 keys are read from
// the file in one pass, a few at a time (copied into a buffer the cache keeps), each key linked and
// placed as it comes and the file's pages given back behind a MiB at a time, so only the decoded
// animation is held whole, not every key copied from the file as well (the benchmark long.anm's
// `info`: 30.1 -> 17.6 MiB; two passes, linking then placing, read every page twice: 1.3 x the time).
// A node's key count is known only at the last key: its arrays are sized for an even share of the
// keys once the nodes are known (at the first chained key; the share of a clip whose nodes all
// have the same count), doubled should it have more, and cut to its keys at the end.
Status placeKeysFromFile(std::span<const uint8_t> fileKeys, Endian endian, const ReleaseBytes& releaseBytes, const UnlinkedKey& unlinked,
                         Animation& anim) {
  constexpr size_t kBufferKeys = 1024;                                      // 36 KiB
  constexpr size_t kReleaseKeys = (size_t{1} << 20) / sizeof(StandardKeyRecord);  // a MiB
  const size_t n = fileKeys.size() / sizeof(StandardKeyRecord);
  const auto buffer = std::make_unique_for_overwrite<StandardKeyRecord[]>(kBufferKeys);
  NodeChains chains(n);
  struct Node {
    Next next;
    size_t placed = 0, room = 0;  // keys placed, and the length of its arrays
  };
  std::vector<Node> nodes;
  for (size_t first = 0, released = 0; first < n;) {
    const size_t count = std::min(n - first, kBufferKeys);
    copyStandardKeys(fileKeys.data() + first * sizeof(StandardKeyRecord), count, endian, buffer.get());
    for (size_t i = 0; i < count; ++i) {
      const StandardKeyRecord& k = buffer[i];
      if (!chains.link(first + i, k.time, k.prev)) return unlinked(first + i, k.prev, chains.numNodes());
      const uint32_t id = chains.node[first + i];
      if (id == nodes.size()) {
        nodes.emplace_back();
        anim.tracks.emplace_back().target.position = id;
      }
      Node& node = nodes[id];
      if (node.placed == node.room) {
        // A node's first key comes before the nodes are known, its second after.
        node.room = node.room == 0 ? 1 : std::max(2 * node.room, (n + nodes.size() - 1) / nodes.size());
        node.next = sizeKeys(anim.tracks[id], node.room, node.placed);
      }
      place(node.next, k);
      ++node.placed;
    }
    first += count;
    if (first - released >= kReleaseKeys || first == n) {
      // From the first key each time: only whole pages are given back, and the one a release ends
      // in is whole by the next.
      releaseBytes(fileKeys.first(first * sizeof(StandardKeyRecord)));
      released = first;
    }
  }
  for (size_t id = 0; id < nodes.size(); ++id) sizeKeys(anim.tracks[id], nodes[id].placed, 0);
  return Ok{};
}

// The chunk stores no name: the animation is left unnamed (loadFile names it after the file).
Result<Animation> readAnimation(ByteReader& r, const ReleaseBytes& releaseBytes) {
  RP_ASSIGN(const int32_t version, r.s32("version"));
  if (version != anm::kVersion) {
    return r.errorAt(r.position() - 4, ErrorCode::Unsupported,
                     fmt::format("Anim Animation version 0x{:X} (only 0x100 exists)", version), "version");
  }
  RP_ASSIGN(const int32_t type, r.s32("interpolatorType"));
  RP_ASSIGN(const uint32_t numKeys, r.u32("numKeyFrames"));
  RP_CHECK(r.s32("flags"));
  Animation anim;
  RP_ASSIGN(anim.duration, r.f32("duration"));

  size_t diskKeySize = 0;
  if (type == anm::kStandardKeys) {
    diskKeySize = anm::kStandardKeySize;
  } else if (type == anm::kCompressedKeys) {
    diskKeySize = anm::kCompressedKeyDiskSize;
  } else {
    return r.errorAt(r.position() - 16, ErrorCode::Unsupported,
                     fmt::format("interpolator type {} (0x{:X}) is not supported; rigport reads 1 (standard) and 2 (compressed)",
                                 type, static_cast<uint32_t>(type)),
                     "interpolatorType");
  }
  const size_t keyBlockStart = r.position();
  const UnlinkedKey unlinked = [&](size_t i, uint32_t prev, uint32_t numNodes) {
    return r.errorAt(keyBlockStart + i * diskKeySize + diskKeySize - 4, ErrorCode::BadValue,
                     fmt::format("prevOffset 0x{:08X} names no earlier key of a node awaiting its next key "
                                 "(all {} first keys must come before the first chained key)",
                                 prev, numNodes),
                     Field("key", static_cast<int64_t>(i)));
  };
  // The key count is checked against the bytes left (and charged to the budget) before anything
  // is allocated; then no key can be cut short: type 1 is read in bulk copies, and no key gets a
  // scope of its own (formatting "key[i]" into the path of every key took a third of a long .anm's
  // reading). Every key is written before it is read, so the array is not zero-filled first.
  RP_ASSIGN(const size_t n, r.count(numKeys, diskKeySize, "numKeyFrames"));
  // Pages are given back only to a caller that keeps counts, not keys (releaseBytes is set for
  // it alone): a conversion reads each page once.
  if (type == anm::kStandardKeys && releaseBytes) {
    RP_CHECK(placeKeysFromFile(r.data().subspan(keyBlockStart, n * sizeof(StandardKeyRecord)), r.endian(), releaseBytes, unlinked, anim));
    static_cast<void>(r.skip(n * sizeof(StandardKeyRecord), "keys"));
  } else {
    const auto keys = std::make_unique_for_overwrite<StandardKeyRecord[]>(n);
    if (type == anm::kStandardKeys) {
      copyStandardKeys(r.data().data() + r.position(), n, r.endian(), keys.get());
      static_cast<void>(r.skip(n * sizeof(StandardKeyRecord), "keys"));
    } else {
      for (size_t i = 0; i < n; ++i) { RP_ASSIGN(keys[i], readCompressedKey(r)); }
      // translation = half · scalar + offset per axis (§1.10).
      glm::vec3 offset, scalar;
      for (int i = 0; i < 3; ++i) { RP_ASSIGN(offset[i], r.f32(Field("offset", i))); }
      for (int i = 0; i < 3; ++i) { RP_ASSIGN(scalar[i], r.f32(Field("scalar", i))); }
      for (size_t i = 0; i < n; ++i) {
        StandardKeyRecord& k = keys[i];
        const glm::vec3 t = glm::vec3(k.t[0], k.t[1], k.t[2]) * scalar + offset;
        k.t[0] = t.x, k.t[1] = t.y, k.t[2] = t.z;
      }
    }
    const size_t unit = type == anm::kStandardKeys ? anm::kStandardKeySize : anm::kCompressedKeyMemorySize;
    RP_CHECK(placeKeys(std::span<const StandardKeyRecord>(keys.get(), n), unit, unlinked, anim));
  }
  // The translation's times are the rotation's, copied once.
  for (BoneTrack& t : anim.tracks) t.translation.times = t.rotation.times;
  return anim;
}

}  // namespace

bool probeAnm(std::span<const uint8_t> bytes) {
  ByteReader r(bytes);
  auto type = r.u32("type");
  return type && *type == kAnimAnimation;
}

Result<ClipSet> readAnm(std::span<const uint8_t> bytes, ReadContext& ctx) {
  ByteReader r = ctx.reader(bytes);
  ClipSet clips;
  clips.provenance.format = "renderware-anm";
  clips.provenance.axes = kRenderWareAxes;
  size_t chunkIndex = 0;
  while (!r.atEnd()) {
    const Field chunkField("chunk", static_cast<int64_t>(chunkIndex++));
    RP_ASSIGN(const ChunkHeader h, readChunkHeader(r, chunkField));
    if (h.type != kAnimAnimation) {
      clips.provenance.warn("unknown-chunk", fmt::format("skipped chunk type 0x{:X} at 0x{:X}", h.type, r.fileOffset() - kChunkHeaderSize));
      RP_CHECK(r.skip(h.size, chunkField));
      continue;
    }
    // A type-1 payload is parsed within the chunk's own size, so an overstated key count is an
    // error rather than the next chunk's bytes read as keys. One public writer stores 20 + 36·n as
    // the size of type-2 chunks (§1.10), so a type-2 payload is parsed from the bytes themselves and
    // the size field only decides where the next chunk starts.
    const Field animField("AnimAnimation", static_cast<int64_t>(clips.animations.size()));
    RP_ASSIGN(ByteReader head, r.window(r.position(), 8, animField));
    RP_CHECK(head.s32("version"));
    RP_ASSIGN(const int32_t type, head.s32("interpolatorType"));
    const size_t payloadBytes = type == anm::kCompressedKeys ? r.remaining() : h.size;
    RP_ASSIGN(ByteReader body, r.window(r.position(), payloadBytes, animField));
    RP_ASSIGN(clips.animations.emplace_back(), readAnimation(body, ctx.options.animationRead ? ctx.releaseBytes : nullptr));
    if (ctx.options.animationRead) ctx.options.animationRead(clips.animations.back());
    const size_t used = body.position();
    size_t next = h.size;
    if (h.size != used) {
      if (h.size < used || h.size > r.remaining()) next = used;
      clips.provenance.warn("chunk-size", fmt::format("{}: chunk size {} but its keys take {} bytes; next chunk read at +{}",
                                                    animField.str(), h.size, used, next));
    }
    RP_CHECK(r.skip(next, animField));
  }
  if (clips.animations.empty()) {
    return r.error(ErrorCode::BadValue, "no Anim Animation chunk (0x1B) in the file", "chunk");
  }
  return clips;
}

}  // namespace rigport::renderware
