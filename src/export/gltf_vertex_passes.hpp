// The exporter's two passes over every vertex that are arithmetic, not copies: POSITION's min/max
// and unit NORMALs (format note gltf_ecosystem.md §1.2, §5.3), each able to change the vertex's
// axes on the way. Both run four vertices at a time in SSE2 lanes and give bit for bit what the
// one-vertex loops give (VertexMap's glm arithmetic, glm::min/max in vertex order, glm::length and a
// division by it), so the JSON and the buffer do not depend on the machine.
#pragma once

#include <cstddef>
#include <cstdint>

#include <glm/glm.hpp>

#include "core/axes.hpp"

namespace rigport::gltf {

struct PositionBounds {
  glm::vec3 lo;
  glm::vec3 hi;
  bool finite;  // every coordinate is finite; lo and hi mean nothing when not
};

// min/max over `n` positions, starting from +-FLT_MAX, as glm::min/max taken vertex by vertex:
// where +0 and -0 tie for a bound, the first in vertex order is the one kept. The same pass looks
// for infinite and NaN coordinates, which the exporter refuses (a second pass cost as much).
PositionBounds positionBounds(const glm::vec3* positions, size_t n);
// The same over the positions `in` as `map` makes them (map.point()), written to `out` first
// (which may be `in`): the axis change and the bounds in one pass (convertAxesLeavingVertices()),
// the copy too when the rig is the caller's (OwnMeshes::from, gltf_document.hpp).
PositionBounds mapPositionBounds(const glm::vec3* in, glm::vec3* out, size_t n, const VertexMap& map);

// Writes each normal divided by its length, or +Y where the length is not finite or at most
// 1e-12 (it cannot be made unit: ACCESSOR_NON_UNIT), to `out` (3n floats), which may be the
// normals themselves (each is read before it is written); returns how many were replaced by +Y.
// With a `map`, each normal is first taken as it makes it (map.direction()).
uint64_t writeUnitNormals(const glm::vec3* normals, size_t n, float* out, const VertexMap* map = nullptr);

}  // namespace rigport::gltf
