// RigStorage: the large arrays of rigs a program is done with, kept for the next read to fill
// instead of fresh ones. Under glibc's default allocator a freed rig's arrays at the top of the heap
// go back to the kernel, and the next read faults them in again 4 KiB at a time (the 9.46 MB DFF of
// BENCHMARKS.md: 3.73 ms a read against 1.30 ms under the CLI's allocator policy, which a library
// must not set for the program embedding it). A program reading file after file gives each rig back
// (recycle()) and names the storage in ReadOptions::storage; a reader takes its arrays from it
// (take()), so the second file and the ones after it allocate no new large array unless they are
// larger than every earlier one.
//
// Readers that take from it: the DFF reader (generic geometry's positions, normals, UVs and
// indices, and every mesh's influences and their offsets; Xbox and WDGL native geometry still
// decode into fresh arrays) and the RW4 arena reader (every RenderOptiMeshData's arrays; Spore's
// meshes still decode into fresh ones). Any other reader can do the same where it sizes a Rig array
// (takeFrom() the vector, then fill it as it fills a fresh one: ByteReader::recordsInto() does for
// arrays stored as they are); until one does, its rigs come from fresh arrays, and recycle() still
// keeps theirs for the readers that take.
#pragma once

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <vector>

#include <glm/glm.hpp>

#include "core/rig.hpp"

namespace rigport {

class RigStorage {
 public:
  // Keeps the arrays of `rig`'s meshes (positions, normals, UVs, indices, influence offsets,
  // influences, morph target deltas) that hold at least kMinBytes, emptied with their capacity;
  // the rest of the rig is freed.
  void recycle(Rig&& rig);

  // An empty vector for `n` elements: the kept one of the smallest capacity that holds `n`, else
  // the largest kept (which the caller's resize replaces), else (or for n = 0, an array the caller
  // leaves empty) a new one. What it held before is
  // gone (size 0): the caller fills it as it would fill a fresh vector, so a read that reuses
  // gives the rig a fresh read gives. Its capacity may be larger than `n` and is no promise.
  template <class Vector>
  Vector take(size_t n) {
    std::vector<Vector>& pool = std::get<std::vector<Vector>>(pools_);
    if (pool.empty() || n == 0) return Vector();
    // `pool` is sorted by capacity: the first that holds `n`, else the last (the largest).
    auto it = std::lower_bound(pool.begin(), pool.end(), n, [](const Vector& v, size_t want) { return v.capacity() < want; });
    if (it == pool.end()) --it;
    Vector out = std::move(*it);
    pool.erase(it);
    return out;
  }

  // Arrays smaller than this are left to the allocator: its bins reuse small chunks without the
  // kernel, and keeping them would only lengthen the search in take().
  static constexpr size_t kMinBytes = 64 * 1024;

 private:
  template <class Vector>
  void keep(Vector& v);

  // One pool per array type, each sorted by capacity.
  std::tuple<std::vector<std::vector<glm::vec3>>, std::vector<std::vector<glm::vec2>>, std::vector<std::vector<uint32_t>>,
             std::vector<InfluenceList>>
      pools_;
};

// `v` = storage->take<Vector>(n) when the read has a storage; else `v` (a reader's fresh, empty
// vector) is left as it is. Either way the caller then fills it.
template <class Vector>
void takeFrom(RigStorage* storage, Vector& v, size_t n) {
  if (storage != nullptr) v = storage->take<Vector>(n);
}

}  // namespace rigport
