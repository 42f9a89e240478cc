// One textured quad as a rig, for tests of textures through every writer: x -0.5..0.5, y 0..1, z 0 in
// glTF's axes (each writer turns it into its format's), wound counter-clockwise seen from +Z, the
// texture's top-left (UV 0, 0: glTF's and the model's convention) at its top-left corner; on one root
// bone, skinned to it or riding on it; its one material is `material`.
#pragma once

#include "core/rig.hpp"

namespace rigport::test {

Rig quadRig(const Material& material, bool skinned);

}  // namespace rigport::test
