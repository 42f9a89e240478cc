#include "core/hash.hpp"

#include <cassert>

namespace rigport {
namespace {

template <class U, U kOffset, U kPrime, bool kLower>
U fnv1(std::string_view bytes) {
  U h = kOffset;
  for (const char ch : bytes) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (kLower && c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
    h *= kPrime;  // FNV-1: multiply first, then XOR (sims3_clip.md R11)
    h ^= c;
  }
  return h;
}

constexpr uint32_t kOffset32 = 0x811C9DC5u;
constexpr uint32_t kPrime32 = 0x01000193u;
constexpr uint64_t kOffset64 = 0xCBF29CE484222325ull;
constexpr uint64_t kPrime64 = 0x100000001B3ull;

}  // namespace

uint32_t fnv1_32(std::string_view bytes) { return fnv1<uint32_t, kOffset32, kPrime32, false>(bytes); }
uint64_t fnv1_64(std::string_view bytes) { return fnv1<uint64_t, kOffset64, kPrime64, false>(bytes); }
uint32_t fnv1_32Lower(std::string_view name) { return fnv1<uint32_t, kOffset32, kPrime32, true>(name); }
uint64_t fnv1_64Lower(std::string_view name) { return fnv1<uint64_t, kOffset64, kPrime64, true>(name); }

const char* hashKindName(HashKind kind) {
  switch (kind) {
    case HashKind::None: return "none";
    case HashKind::Fnv1_32Lower: return "fnv1-32-lower";
    case HashKind::Fnv1_64Lower: return "fnv1-64-lower";
    case HashKind::Fnv1_64LowerLow32: return "fnv1-64-lower-low32";
  }
  return "none";
}

uint64_t hashName(HashKind kind, std::string_view name) {
  switch (kind) {
    case HashKind::Fnv1_32Lower: return fnv1_32Lower(name);
    case HashKind::Fnv1_64Lower: return fnv1_64Lower(name);
    case HashKind::Fnv1_64LowerLow32: return fnv1_64Lower(name) & 0xFFFFFFFFull;
    case HashKind::None: break;
  }
  assert(false && "hashName: HashKind::None has no function");
  return 0;
}

}  // namespace rigport
