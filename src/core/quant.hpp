// Dequantisation (for readers) and quantisation (for writers) of the integer encodings game formats
// use for positions, normals, rotations and weights. Decoders are total: every code gives a finite
// value. Encoders round to nearest and clamp to the code range, so encode(decode(c)) == c for every
// code c except the ones documented below. `bits` is a caller's constant: it must be 1..16 for
// unorm/fixed and 2..16 for snorm (asserted).
#pragma once

#include <cstdint>

#include <glm/glm.hpp>

namespace rigport::quant {

// n-bit unsigned normalised: code / (2^n − 1), so 0 → 0 and all-ones → 1 exactly. Sims 3 CLIP keys
// use n = 10, 12, 16 (sims3_clip.md R2/R4/R5/R7: raw/1023, raw/4095, raw/65535); RW4 UB weights n = 8.
float unormToFloat(uint32_t code, unsigned bits);
uint32_t floatToUnorm(float v, unsigned bits);  // clamps to [0, 1]; NaN encodes as 0

// The low `bits` bits of `code` read as two's complement.
int32_t signExtend(uint32_t code, unsigned bits);

// n-bit signed normalised, two's complement in the low n bits: max(c / (2^(n−1) − 1), −1), the
// OpenGL/Direct3D rule: the most negative code and the one above it both mean −1, so that 0 is
// exact and the range is symmetric. The encoder writes −1 as −(2^(n−1) − 1), never the extreme code,
// and returns the low n bits. −0 encodes as 0 and 0 decodes as +0.
float snormToFloat(uint32_t code, unsigned bits);
uint32_t floatToSnorm(float v, unsigned bits);  // clamps to [−1, 1]; NaN encodes as 0

// Fixed point with `frac` fractional bits: raw / 2^frac (GX: quantizeInfo's low nibble, sluggers.md
// §3; SKN posNrmShift §5; the Q14 quaternions of ANM keys §7). Exact for |raw| < 2^24.
float fixedToFloat(int32_t raw, unsigned frac);
// The nearest raw value of a `bits`-bit integer (signed two's complement or unsigned) with `frac`
// fractional bits, clamped to that integer's range; NaN encodes as 0. The caller stores the low bits.
int32_t floatToFixed(float v, unsigned frac, unsigned bits, bool isSigned);

// 10:10:10:2 in one u32, x in bits 0–9, y 10–19, z 20–29, w 30–31 (the GL *_2_10_10_10_REV layout).
// Unsigned normalised: /1023 and /3; the Sims 3 0x112 translation is the xyz of this, with its signs
// kept in the key flags and bits 30–31 unused (sims3_clip.md R5, §2.7).
glm::vec4 unpackUnorm1010102(uint32_t word);
uint32_t packUnorm1010102(const glm::vec4& v);
// Signed normalised: each field is snorm (10 bits, /511; 2 bits, /1, so w ∈ {−1, 0, 1}).
glm::vec4 unpackSnorm1010102(uint32_t word);
uint32_t packSnorm1010102(const glm::vec4& v);

// RSX CMP (PS3 vertex type 0x06): x 11 bits (0–10), y 11 bits (11–21), z 10 bits (22–31), each
// signed normalised (/1023, /1023, /511), w = 1 implied (rw4_arena.md §0 item 5, §3.1). The tools
// the note cites divide without clamping, so for the single most negative code of a field they give
// −1024/1023 (or −512/511) where this gives −1: a difference below 0.002, on a normal.
glm::vec3 unpackCmp111110(uint32_t word);
uint32_t packCmp111110(const glm::vec3& v);

// Sluggers skin weights: u8 / 256, not / 255 (sluggers.md §5, GQR6 scale 2⁻⁸): 255 is 255/256, and
// a full weight (256) is stored as two records 255 + 1 that the reader sums, so a stored byte
// never means 1.0 by itself.
float weightOver256(uint8_t raw);
// A weight as a count of 1/256 units, 0..256 (round to nearest, clamp to [0, 1]; NaN gives 0): a
// writer stores 256 as the records 255 + 1.
uint32_t weightTo256ths(float w);

}  // namespace rigport::quant
