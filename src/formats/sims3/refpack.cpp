#include "formats/sims3/refpack.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace rigport::sims3 {
namespace {

constexpr uint8_t kMagic = 0xFB;
constexpr uint8_t kFlagLargeSizes = 0x80;      // 4-byte size fields instead of 3
constexpr uint8_t kFlagCompressedSize = 0x01;  // a compressed-size field precedes the size
constexpr uint8_t kWriterFlags = 0x10;         // what s3pi writes ("10 FB")

// Longest copy and farthest offset of each copy opcode (§4 table).
constexpr size_t kShortMaxLen = 10, kShortMaxOffset = 1024;
constexpr size_t kMediumMaxLen = 67, kMediumMaxOffset = 16384;
constexpr size_t kLongMaxLen = 1028, kLongMaxOffset = 131072;

// The most output one byte of the stream can make: the long copy (0xC0-0xDF) spends 4 bytes on up
// to 1,028 copied bytes; a short copy makes at most 10 per 2 bytes, a medium one 67 per 3, a literal
// 1 per byte. A declared size beyond 257 x the stream's bytes is forged (issue 25).
constexpr uint64_t kMostOutputPerByte = kLongMaxLen / 4;
// The output's first allocation is twice the stream's bytes (real resources expand 1.3-4 times, so
// one or two growths), at least kFirstOutputChunk; it then doubles as the stream fills it, never
// past the declared size.
constexpr size_t kFirstOutputChunk = 4096;

Result<uint64_t> readHeader(ByteReader& r) {
  RP_ASSIGN(const uint8_t flags, r.u8("flags"));
  RP_ASSIGN(const uint8_t magic, r.u8("magic"));
  if (magic != kMagic) return r.errorAt(r.position() - 1, ErrorCode::BadValue, "not a RefPack stream (byte 1 is not 0xFB)", "magic");
  const size_t sizeBytes = (flags & kFlagLargeSizes) != 0 ? 4 : 3;
  if ((flags & kFlagCompressedSize) != 0) RP_CHECK(r.skip(sizeBytes, "compressedSize"));
  RP_ASSIGN(const auto size, r.bytes(sizeBytes, "uncompressedSize"));
  uint64_t n = 0;
  for (uint8_t b : size) n = n << 8 | b;  // big-endian
  return n;
}

// One opcode of §4's table: its own bytes, then `plain` literal bytes from the stream, then `copy`
// bytes from `offset` bytes back in the output.
struct Opcode {
  size_t length = 1;
  size_t plain = 0, copy = 0, offset = 0;
  bool last = false;
};

size_t opcodeLength(uint8_t c) { return c < 0x80 ? 2 : c < 0xC0 ? 3 : c < 0xE0 ? 4 : 1; }

// Reads opcodeLength(in[0]) bytes, which the caller has checked are there. Inline: called from two
// places, GCC 12 made it a call, whose Opcode comes back through memory (a package's 924,000
// opcodes: 73 M instructions with the calls, 57 M without).
inline Opcode decode(const uint8_t* in) {
  const uint8_t c = in[0];
  Opcode op;
  op.length = opcodeLength(c);
  if (c < 0x80) {
    op.plain = c & 3u;
    op.copy = ((c >> 2) & 7u) + 3;
    op.offset = ((c & 0x60u) << 3) + in[1] + 1;
  } else if (c < 0xC0) {
    op.plain = in[1] >> 6;
    op.copy = (c & 0x3Fu) + 4;
    op.offset = ((in[1] & 0x3Fu) << 8) + in[2] + 1;
  } else if (c < 0xE0) {
    op.plain = c & 3u;
    op.copy = ((c & 0x0Cu) << 6) + in[3] + 5;
    op.offset = ((c & 0x10u) << 12) + (static_cast<size_t>(in[1]) << 8) + in[2] + 1;
  } else if (c < 0xFC) {
    op.plain = ((c & 0x1Fu) + 1) * 4;
  } else {
    op.plain = c & 3u;
    op.last = true;
  }
  return op;
}

// The bytes a fixed-size move carries; the fast loop wants this much room past an opcode's input
// and output.
constexpr size_t kMove = 16;

// Copies `n` bytes in `step`-byte moves, at least one (up to `step` bytes written past d + n, and
// read past s + n); `s` is at least `step` bytes behind `d` when they overlap, so each move reads
// bytes already written.
template <size_t step>
void moveInSteps(uint8_t* d, const uint8_t* s, size_t n) {
  size_t i = 0;
  do {
    std::memcpy(d + i, s + i, step);
    i += step;
  } while (i < n);
}

// The room decodeWithRoom() keeps past an opcode's input and output: no opcode but a long copy
// reads or writes more. A literal run reads 1 + 112 bytes and writes 112 (its 16-byte moves stop at
// the run's last multiple of 16, 112 at most); a copy opcode reads at most 4 + 4 and writes its 4
// literal bytes' move, then at most 3 + 67 bytes in 16-byte moves (3 + 80).
constexpr size_t kRoom = 1 + 112;

// Decodes opcodes while kRoom bytes of the stream and of the output are left, so that only a copy's
// offset (and a long copy's length) is checked per opcode; returns at the first that is not plainly
// valid, the end opcode, or where less room is left (a package clip's last 1 %), for
// refpackDecompress's exact path to decode, report or finish. Two variable-length memcpy calls per
// opcode (a clip's make about 7 bytes each) cost more than the bytes they moved, and three room
// checks per opcode some 8 % of the rest (a package's 910,000 opcodes: 46.6 M instructions, 43.1 M
// with the one check). A package's clips are two thirds copy opcodes (at most 3
// literal bytes, then 3 to 10 copied, mostly from 16 or more bytes back: one move each) and one
// third literal runs of 4 to 112 bytes; each kind has its own path, the literal run's without the
// copy's dispatch.
void decodeWithRoom(const uint8_t*& in, const uint8_t* end, uint8_t* out, size_t& o, size_t capacity) {
  while (static_cast<size_t>(end - in) >= kRoom && capacity - o >= kRoom) {
    const uint8_t c = in[0];
    if (c >= 0xE0) {  // a literal run, or the end opcode (its last bytes are the exact path's)
      if (c >= 0xFC) return;
      const size_t plain = ((c & 0x1Fu) + 1) * 4;
      moveInSteps<kMove>(out + o, in + 1, plain);
      in += 1 + plain;
      o += plain;
      continue;
    }
    // The copy, from decode()'s fields; false where it is the exact path's.
    auto copy = [&](const Opcode& op) {
      if (op.offset > o + op.plain) return false;
      if (op.copy > kMediumMaxLen && op.plain + op.copy + kMove > capacity - o) return false;  // a long copy past the room
      in += op.length;
      uint8_t* d = out + o;
      std::memcpy(d, in, 4);  // a copy opcode's 0 to 3 literal bytes, in one move within the room
      in += op.plain;
      d += op.plain;
      const uint8_t* s = d - op.offset;
      if (op.offset >= kMove) {
        moveInSteps<kMove>(d, s, op.copy);
      } else if (op.offset >= 8) {
        moveInSteps<8>(d, s, op.copy);
      } else {
        moveInSteps<1>(d, s, op.copy);  // a run of a short pattern
      }
      o += op.plain + op.copy;
      return true;
    };
    // The short copy (two thirds of a package clip's opcodes) decoded on a path of its own: with
    // decode() inlined for a first byte below 0x80, its fields are the first row's alone and its
    // 3 to 10 bytes one 16-byte move, no loop (a package's 900,000 opcodes: 43.1 M instructions
    // through one decode for every copy, 37.8 M this way).
    if (!(c < 0x80 ? copy(decode(in)) : copy(decode(in)))) return;
  }
}

}  // namespace

// The output grows as the stream fills it, each growth charged to the budget first: a declared
// size costs nothing the stream's bytes do not make, so a forged one cannot spend the budget the
// resources after it need. The charge is at most twice the bytes written, or twice the stream's.
Status refpackDecompressInto(ByteReader r, RefPackBytes& out) {
  out.clear();
  auto scope = r.scope("RefPack");
  RP_ASSIGN(const uint64_t size, readHeader(r));
  const uint64_t most = kMostOutputPerByte * r.remaining();
  if (size > most) {
    return r.errorAt(r.position(), ErrorCode::TooLarge,
                     fmt::format("declares {} bytes, but its {}-byte stream can make at most {}", size, r.remaining(), most),
                     "uncompressedSize");
  }
  const size_t first = std::max(kFirstOutputChunk, 2 * r.remaining());
  auto room = [&](size_t need) -> Status {  // out holds at least `need` bytes (need <= size)
    if (need <= out.size()) return Ok{};
    const size_t grown = static_cast<size_t>(std::min<uint64_t>(size, std::max({need, 2 * out.size(), first})));
    RP_CHECK(r.charge(grown - out.size(), "uncompressedSize"));
    out.resize(grown);
    return Ok{};
  };
  const uint8_t* const begin = r.data().data();
  const uint8_t* in = begin + r.position();
  const uint8_t* const end = begin + r.size();
  size_t o = 0;
  auto fail = [&](const uint8_t* at, std::string message) { return r.errorAt(static_cast<size_t>(at - begin), ErrorCode::BadValue, std::move(message), "opcode"); };
  // The exact path, an opcode at a time: the ones decodeWithRoom leaves, each checked and reported.
  for (;;) {
    decodeWithRoom(in, end, out.data(), o, out.size());
    if (in >= end) return r.errorAt(r.size(), ErrorCode::Truncated, fmt::format("stream ends after {} of {} bytes, before its end opcode", o, size), "opcode");
    const uint8_t* const at = in;
    if (static_cast<size_t>(end - in) < opcodeLength(*in)) return fail(at, "opcode runs past the end");
    const Opcode op = decode(in);
    in += op.length;
    if (op.plain > static_cast<size_t>(end - in)) return fail(at, fmt::format("{} literal bytes run past the end of the stream", op.plain));
    if (op.plain > size - o) return fail(at, fmt::format("{} literal bytes overflow the {}-byte output at {}", op.plain, size, o));
    RP_CHECK(room(o + op.plain));
    if (op.plain > 0) std::memcpy(out.data() + o, in, op.plain);  // never with the null data of an empty output
    in += op.plain;
    o += op.plain;
    if (op.copy > 0) {
      if (op.offset > o) return fail(at, fmt::format("copies from {} bytes back at output {}", op.offset, o));
      if (op.copy > size - o) return fail(at, fmt::format("a {}-byte copy overflows the {}-byte output at {}", op.copy, size, o));
      RP_CHECK(room(o + op.copy));
      uint8_t* d = out.data() + o;
      const uint8_t* s = d - op.offset;
      if (op.offset >= op.copy) {
        std::memcpy(d, s, op.copy);
      } else {
        moveInSteps<1>(d, s, op.copy);  // overlapping: a run
      }
      o += op.copy;
    }
    if (op.last) break;
  }
  if (o != size) return fail(in - 1, fmt::format("stream ends after {} of {} bytes", o, size));
  return Ok{};
}

Result<std::vector<uint8_t>> refpackDecompress(ByteReader r) {
  RefPackBytes out;
  RP_CHECK(refpackDecompressInto(r, out));
  return std::vector<uint8_t>(out.begin(), out.end());
}

namespace {

// Literal runs of 4..112 bytes (opcode 0xE0-0xFB) until at most `keep` (3) remain for the next opcode.
void emitLiterals(std::vector<uint8_t>& out, const uint8_t* lit, size_t& n, size_t keep) {
  while (n > keep) {
    const size_t chunk = std::min<size_t>(112, n / 4 * 4);  // leaves n % 4 <= keep
    if (chunk == 0) break;
    out.push_back(static_cast<uint8_t>(0xE0 + chunk / 4 - 1));
    out.insert(out.end(), lit, lit + chunk);
    lit += chunk;
    n -= chunk;
  }
}

}  // namespace

std::vector<uint8_t> refpackCompress(std::span<const uint8_t> data) {
  std::vector<uint8_t> out;
  out.reserve(data.size() / 2 + 16);
  const size_t n = data.size();
  if (n < (1u << 24)) {
    out.insert(out.end(), {kWriterFlags, kMagic, static_cast<uint8_t>(n >> 16), static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)});
  } else {
    out.insert(out.end(), {static_cast<uint8_t>(kWriterFlags | kFlagLargeSizes), kMagic, static_cast<uint8_t>(n >> 24),
                           static_cast<uint8_t>(n >> 16), static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)});
  }
  constexpr unsigned kHashBits = 16;
  std::vector<uint32_t> head(1u << kHashBits, 0);  // position + 1 of the last 4-byte sequence with this hash
  auto hashAt = [&](size_t i) {
    uint32_t v;
    std::memcpy(&v, data.data() + i, 4);
    return (v * 2654435761u) >> (32 - kHashBits);
  };
  const uint8_t* p = data.data();
  size_t litStart = 0, i = 0;
  while (i + 4 <= n) {
    const uint32_t h = hashAt(i);
    const size_t cand = head[h];
    head[h] = static_cast<uint32_t>(i + 1);
    size_t len = 0, offset = 0;
    if (cand > 0 && i - (cand - 1) <= kLongMaxOffset) {
      const size_t j = cand - 1;
      const size_t limit = std::min(kLongMaxLen, n - i);
      while (len < limit && p[j + len] == p[i + len]) ++len;
      offset = i - j;
    }
    const bool usable = len >= 4 && (offset <= kMediumMaxOffset || len >= 5);
    if (!usable) {
      ++i;
      continue;
    }
    size_t lit = i - litStart;
    emitLiterals(out, p + litStart, lit, 3);
    const uint8_t* tail = p + i - lit;
    const size_t o = offset - 1;
    if (offset <= kShortMaxOffset && len <= kShortMaxLen) {
      out.push_back(static_cast<uint8_t>(((o >> 3) & 0x60) | ((len - 3) << 2) | lit));
      out.push_back(static_cast<uint8_t>(o));
    } else if (offset <= kMediumMaxOffset && len <= kMediumMaxLen) {
      out.push_back(static_cast<uint8_t>(0x80 | (len - 4)));
      out.push_back(static_cast<uint8_t>((lit << 6) | (o >> 8)));
      out.push_back(static_cast<uint8_t>(o));
    } else {
      const size_t l = len - 5;
      out.push_back(static_cast<uint8_t>(0xC0 | ((o >> 16) << 4) | ((l >> 8) << 2) | lit));
      out.push_back(static_cast<uint8_t>(o >> 8));
      out.push_back(static_cast<uint8_t>(o));
      out.push_back(static_cast<uint8_t>(l));
    }
    out.insert(out.end(), tail, tail + lit);
    // Index the sequences inside the match too (cheaply: every position), so runs find themselves.
    const size_t stop = std::min(i + len, n - 3);
    for (size_t k = i + 1; k < stop; ++k) head[hashAt(k)] = static_cast<uint32_t>(k + 1);
    i += len;
    litStart = i;
  }
  size_t lit = n - litStart;
  emitLiterals(out, p + litStart, lit, 3);
  out.push_back(static_cast<uint8_t>(0xFC | lit));
  out.insert(out.end(), p + n - lit, p + n);
  return out;
}

}  // namespace rigport::sims3
