// Comparing and copying rigs without copying what is the same already.
#pragma once

#include "core/rig.hpp"

namespace rigport {

// Whether two JSON values are written as the same text: the same types, floats of the same bits,
// members in the same order. JSON's own equality is not that: it takes 1 for 1.0 and -0.0 for 0.0.
bool writtenAlike(const nlohmann::json& a, const nlohmann::json& b);
// Bit for bit the same (floats by their bits: -0 and 0 differ, as their JSON text does), extras
// included (writtenAlike()): what an export of the one writes for the other.
bool identical(const Bone& a, const Bone& b);
bool identical(const Skeleton& a, const Skeleton& b);
// Makes `to` a copy of `from` without animations (`to`'s are cleared), reusing what `to` holds: a
// skeleton identical to from's is kept as it is (the result says whether it was), and extras
// written alike are not copied again.
// A rig that plays clip after clip (a package's RIG) is then copied once, not once per clip, when
// each clip's rig is given back as `to` for the next (the copies of its bones' names and extras
// cost more than a clip's keys).
bool assignWithoutAnimations(Rig& to, const Rig& from);
// The same leaving `to`'s meshes as they are, for a caller that copies them its own way (the glTF
// exporter's copy of a rig, gltf_export.cpp's copyToConvert()).
bool assignWithoutMeshesOrAnimations(Rig& to, const Rig& from);

}  // namespace rigport
