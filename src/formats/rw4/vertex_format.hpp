// Vertex element decoding and encoding for the PS3 vertex descriptor's types (rw4_arena.md §3.1):
// UB, UB256, S1, S32K, SF (half), F and CMP (11:11:10). The component size of the element's type
// governs the step between components (the walkthrough's pitfall), the element's stride the step
// between vertices.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <glm/glm.hpp>

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"
#include "formats/rw4/arena_layout.hpp"

namespace rigport::rw4 {

// How an element's integers become values:
//   Value:    UB /255, UB256 raw, S1 signed normalised (/32767), S32K raw, SF half, F float, CMP 11:11:10;
//   Position: as Value, except S1 and S32K, which are raw / 256 (§3.1: the tools' position scale, UNVERIFIED);
//   Integer:  the stored integer (blend indices: UB and UB256 both raw bytes), F and SF rounded.
enum class Meaning { Value, Position, Integer };

// Bytes one element occupies in a vertex (CMP: 4 whatever numComponents says).
size_t elementBytes(const VertexElement& e);
// Components decodeVertex gives for the element: CMP 3, else numComponents up to 4.
inline size_t elementComponents(const VertexElement& e) { return e.vertexType == kCMP ? 3 : (e.numComponents < 4 ? e.numComponents : 4); }

// Decodes `count` vertices of `e` from `data` (vertex v at v * stride + e.offset, which the caller
// has checked lies inside `data`) into out[v * outStride + c] for the first min(components,
// outComponents) components c; the others are left as they are. One loop per type, so the switch
// is outside the per-vertex work.
void decodeElement(const VertexElement& e, Meaning meaning, std::span<const uint8_t> data, size_t stride, size_t count,
                   Endian endian, float* out, size_t outStride, size_t outComponents);

// The components of one vertex's element at `p` (its first byte), at most 4, into out[]; returns
// how many (CMP: 3). For per-vertex work that needs several elements at once (blend indices and weights).
size_t decodeVertex(const VertexElement& e, Meaning meaning, const uint8_t* p, bool swap, float out[4]);
// decodeVertex with the byte types (the usual blend indices and weights) inline.
inline size_t decodeVertexFast(const VertexElement& e, Meaning meaning, const uint8_t* p, bool swap, float out[4]) {
  const size_t n = e.numComponents < 4 ? e.numComponents : 4;
  if (e.vertexType == kUB256 || (e.vertexType == kUB && meaning == Meaning::Integer)) {
    for (size_t c = 0; c < n; ++c) out[c] = static_cast<float>(p[c]);
    return n;
  }
  if (e.vertexType == kUB) {
    for (size_t c = 0; c < n; ++c) out[c] = static_cast<float>(p[c]) / 255.0f;
    return n;
  }
  return decodeVertex(e, meaning, p, swap, out);
}

// Whether values of this byte order need swapping on this machine.
bool needsSwap(Endian e);

// Encodes one vertex's value of element `e` at `dst` (elementBytes(e) bytes), rounding to the
// nearest code and clamping to the type's range.
void encodeElement(const VertexElement& e, Meaning meaning, const glm::vec4& value, Endian endian, uint8_t* dst);

}  // namespace rigport::rw4
