#include "core/rig_storage.hpp"

namespace rigport {

template <class Vector>
void RigStorage::keep(Vector& v) {
  if (v.capacity() * sizeof(typename Vector::value_type) < kMinBytes) return;
  v.clear();
  std::vector<Vector>& pool = std::get<std::vector<Vector>>(pools_);
  const auto at = std::upper_bound(pool.begin(), pool.end(), v.capacity(), [](size_t have, const Vector& k) { return have < k.capacity(); });
  pool.insert(at, std::move(v));
}

void RigStorage::recycle(Rig&& rig) {
  for (Mesh& m : rig.meshes) {
    keep(m.positions);
    keep(m.normals);
    keep(m.uvs);
    keep(m.indices);
    keep(m.influenceOffsets);
    keep(m.influences);
    for (MorphTarget& t : m.morphTargets) {
      keep(t.positionDeltas);
      keep(t.normalDeltas);
    }
  }
  rig = Rig();
}

}  // namespace rigport
