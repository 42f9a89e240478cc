// A bone's local translation, rotation and scale from a matrix that may carry scale and shear, as
// game files' frames and inverted bind matrices often do.
#pragma once

#include <glm/glm.hpp>

#include "core/rig.hpp"

namespace rigport {

// Columns right, up, at, position: translation = position, scale = column lengths, rotation = the
// Gram-Schmidt orthonormalised 3×3 (a mirrored basis becomes a negative z scale; a zero column a
// unit axis). Returns the shear: the largest cosine between two columns, 0 for a pure TRS.
float decomposeTrs(const glm::mat4& m, Bone& bone);

}  // namespace rigport
