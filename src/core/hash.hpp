// Name hashes that formats store instead of (or beside) bone names, so a binder can hash a
// skeleton's names with the same function when the skeleton itself stores no hashes.
//
// FNV-1 (multiply, then XOR), not FNV-1a (sims3_clip.md R11, §2.13): 32-bit offset 0x811C9DC5,
// prime 0x01000193; 64-bit offset 0xCBF29CE484222325, prime 0x100000001B3.
#pragma once

#include <cstdint>
#include <string_view>

namespace rigport {

// Which function produced a stored name hash.
enum class HashKind : uint8_t {
  None,               // no known function (e.g. Spore's RW4 skeleton hashes): only stored values compare
  Fnv1_32Lower,       // FNV-1 32 of the ASCII-lower-cased name: Sims 3 bone track keys (sims3_clip.md §2.13)
  Fnv1_64Lower,       // FNV-1 64 of the ASCII-lower-cased name: Sims 3 resource names (§2.13)
  Fnv1_64LowerLow32,  // the low 32 bits of Fnv1_64Lower: Sims 3 morph/driver track keys (§2.9)
};

uint32_t fnv1_32(std::string_view bytes);
uint64_t fnv1_64(std::string_view bytes);

// The Sims 3 variants fold 'A'..'Z' to 'a'..'z' before hashing; every other byte is hashed as is.
// s3py lower-cases and encodes as ASCII, s3pi lower-cases invariantly; they agree on ASCII names,
// which is all real rigs use (auRig: 257/257 names match, sims3_clip.md §3.3).
uint32_t fnv1_32Lower(std::string_view name);
uint64_t fnv1_64Lower(std::string_view name);

// The hash of `name` of the given kind, widened to 64 bits. `kind` must not be HashKind::None
// (there is no function to apply); it asserts, and returns 0 in release builds.
uint64_t hashName(HashKind kind, std::string_view name);

// A stable name for reports and glTF extras ("fnv1-32-lower"), so a glTF read back keeps the kind.
const char* hashKindName(HashKind kind);

}  // namespace rigport
