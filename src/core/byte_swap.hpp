// byteSwap: reverses the bytes of a 1-, 2-, 4- or 8-byte value (integer or float). ISO C++20 has no
// std::byteswap (C++23) and the compiler builtins are extensions: the shifts below are the pattern
// GCC, clang and MSVC each turn into one bswap/rev instruction.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

namespace rigport {

constexpr uint16_t byteSwap16(uint16_t u) { return static_cast<uint16_t>((u >> 8) | (u << 8)); }
constexpr uint32_t byteSwap32(uint32_t u) {
  return (u >> 24) | ((u >> 8) & 0x0000FF00u) | ((u << 8) & 0x00FF0000u) | (u << 24);
}
constexpr uint64_t byteSwap64(uint64_t u) {
  return (uint64_t{byteSwap32(static_cast<uint32_t>(u))} << 32) | byteSwap32(static_cast<uint32_t>(u >> 32));
}

template <class T>
constexpr T byteSwap(T v) {
  static_assert(std::is_trivially_copyable_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8));
  if constexpr (sizeof(T) == 2) return std::bit_cast<T>(byteSwap16(std::bit_cast<uint16_t>(v)));
  if constexpr (sizeof(T) == 4) return std::bit_cast<T>(byteSwap32(std::bit_cast<uint32_t>(v)));
  if constexpr (sizeof(T) == 8) return std::bit_cast<T>(byteSwap64(std::bit_cast<uint64_t>(v)));
  return v;
}

}  // namespace rigport
