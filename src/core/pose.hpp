// Pose: a rig as a glTF client poses it (glTF 2.0 §3.7.3.3 "Skins", gltf_ecosystem.md §1.1): a
// joint's world matrix is its parent's times its local T·R·S (less the parent's scale where the
// skeleton's children do not inherit it, Skeleton::inheritScale), a skinned vertex is the weighted sum
// of (joint world × inverse bind matrix)·v, an unskinned mesh rides on its bone (or the model root);
// v is the base position plus each morph target's delta times its weight (§3.7.2.2), the weights
// sampled from the clip's morph weight track of the mesh, else the mesh's default weights.
// What `rigport compare` measures (core/compare.hpp); it applies the glTF exporter's rules where
// the rig model leaves a choice, so that a rig and its .glb pose alike.
#pragma once

#include <cstddef>
#include <vector>

#include <glm/glm.hpp>

#include "core/rig.hpp"

namespace rigport {

class Pose {
 public:
  // At the rest pose. `rig` must outlive the Pose.
  explicit Pose(const Rig& rig);

  // Moves the bones to time `t` (seconds) of `clip`, a clip bound to this rig's skeleton whose
  // tracks are Absolute (makeAbsolute(), core/track_space.hpp): each keyed channel sampled by its
  // own interpolation (sampleKeys(), core/key_sample.hpp), every other channel at the bone's rest
  // value; so are the morph weights of the meshes its bound morph weight tracks drive.
  // nullptr: the rest pose.
  void setTime(const Animation* clip, float t);

  // Per bone, its world matrix in the current pose.
  const std::vector<glm::mat4>& jointWorld() const { return world_; }
  // Per bone, its world matrix times its inverse bind matrix in the current pose: what moves the
  // vertices it weighs on.
  const std::vector<glm::mat4>& skin() const { return skin_; }
  // The bone a skinned vertex without a usable weight rides on (the exporter's shallowest joint).
  size_t rootJoint() const { return rootJoint_; }
  // Vertex v of mesh m in the current pose. Weights count in proportion to their sum (the glTF
  // exporter renormalises them to 1); a vertex without weight rides on the shallowest joint (where
  // the exporter puts it).
  glm::vec3 vertex(size_t m, size_t v) const;
  // vertex(m, v) of `count` vertices from `first` into `out`, bit for bit, with what every vertex of
  // the mesh shares looked up once (comparePoses() poses every vertex of both rigs).
  void vertices(size_t m, size_t first, size_t count, glm::vec3* out) const;
  // vertices(m, first, count, out) and other.vertices(m, first, count, otherOut), bit for bit. Where
  // both rigs' mesh m has the same positions and influences there (a rig and the file written from it,
  // read back: the bind and clip vertices of convert's check) and both skin it, in one pass that reads
  // them once and poses both sides in the same lanes. Mesh m must be in both rigs.
  void verticesWith(const Pose& other, size_t m, size_t first, size_t count, glm::vec3* out, glm::vec3* otherOut) const;
  // Mesh m's morph target weights in the current pose, one per target.
  const std::vector<float>& morphWeights(size_t m) const { return morphWeights_[m]; }

 private:
  // Whether verticesWith() may pose both sides' vertices [first, first + count) of mesh m in one pass:
  // both skinned and not shaped by a morph weight, skeletons of the same size, and the same bytes of
  // positions, influence offsets and influences.
  bool sameSkinning(const Pose& other, size_t m, size_t first, size_t count) const;

  const Rig& rig_;
  Skeleton posed_;                       // the rig's skeleton, local TRS at the current time
  std::vector<glm::mat4> inverseBind_;   // per bone, as the exporter writes it
  std::vector<glm::mat4> world_;
  std::vector<glm::mat4> skin_;          // per bone: world × inverse bind
  size_t rootJoint_ = 0;                 // a bone index
  std::vector<std::vector<float>> morphWeights_;  // per mesh, per morph target: its weight now
};

}  // namespace rigport
