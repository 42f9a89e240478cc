// glTF as third-party tools write it, for writer tests (issue 27 §2): a rig exported by rigport,
// read with tinygltf, edited the way gltfpack, glTF-Transform or assimp write, and saved (each
// saved file must pass the Khronos validator).
#pragma once

#include <string>

#include <glm/glm.hpp>
#include <tiny_gltf.h>

#include "core/rig.hpp"

namespace rigport::test {

// `rig` written by rigport's exporter as it is (tinygltf's writer would drop a skin's extras).
std::string writeGlb(const Rig& rig, const std::string& path);
// `rig` as rigport's exporter writes it, as tinygltf reads it.
tinygltf::Model exported(const Rig& rig);
// Writes `model` as a .glb at `path` and checks it with the validator; returns `path`.
std::string save(tinygltf::Model& model, const std::string& path);
// The mesh moved into B⁻¹'s space and B folded into every inverse bind matrix (joint world × IBM =
// B): what gltfpack's dequantisation, glTF-Transform quantize and assimp's FBX conversions write.
void foldBindShape(tinygltf::Model& m, const glm::mat4& b);
// The skin's joint list reversed, with the inverse bind matrices and JOINTS_0 following: valid glTF.
void reverseJoints(tinygltf::Model& m);
// A node "Armature" above the scene's skeleton roots (Blender's armature object, assimp's root node), moved
// and turned by the first animation through the samplers of its first translation and rotation
// channels: a track on a node that is no joint.
void animateArmature(tinygltf::Model& m);
// Each joint node that no channel animates holds a `matrix` in place of its TRS (assimp writes
// every node so; the spec keeps TRS only for animated nodes).
void matrixJoints(tinygltf::Model& m);
// The skin without inverse bind matrices (valid glTF: each is then the identity), so a client
// draws each vertex at joint world × v.
void dropInverseBinds(tinygltf::Model& m);
// The skinned mesh node made the parent of the skeleton's roots (Khronos' SimpleSkin: the mesh node
// above the skeleton, with no transform of its own, which the validator warns of).
void meshAboveSkeleton(tinygltf::Model& m);

}  // namespace rigport::test
