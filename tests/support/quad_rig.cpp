#include "support/quad_rig.hpp"

namespace rigport::test {

Rig quadRig(const Material& material, bool skinned) {
  Rig rig;
  rig.name = "quad";
  Bone root;
  root.name = "root";
  rig.skeleton.bones.push_back(root);
  Mesh mesh;
  mesh.name = "quad";
  mesh.positions = {{-0.5f, 1, 0}, {0.5f, 1, 0}, {-0.5f, 0, 0}, {0.5f, 0, 0}};
  mesh.normals.assign(4, glm::vec3(0, 0, 1));
  mesh.uvs = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
  mesh.indices = {2, 3, 1, 2, 1, 0};
  mesh.parts = {MeshPart{0, 0, 6}};
  if (skinned) {
    mesh.influenceOffsets = {0, 1, 2, 3, 4};
    for (int i = 0; i < 4; ++i) mesh.influences.push_back(Influence{0, 1.0f});
  } else {
    mesh.attachBone = 0;
  }
  rig.meshes.push_back(std::move(mesh));
  rig.materials = {material};
  return rig;
}

}  // namespace rigport::test
