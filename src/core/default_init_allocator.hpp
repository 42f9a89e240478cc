// DefaultInitAllocator: std::allocator, except that a vector element made without a value is
// default-initialised instead of value-initialised. For a trivial type that means left as it is, so
// `resize(n)` of an array a reader overwrites at once costs no zero-fill pass (for Mesh::influences,
// 4 MB of 8-byte stores on issue 11's DFF, a sixth of building its meshes). Elements made with a
// value (`push_back`, `resize(n, value)`, `Influence{}`) are initialised as usual.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace rigport {

template <class T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

}  // namespace rigport
