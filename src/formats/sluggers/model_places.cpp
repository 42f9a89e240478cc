#include "formats/sluggers/model_places.hpp"

namespace rigport::sluggers {

void placeBones(const ActData& act, size_t actAt, const std::vector<int32_t>& tableToRig, ModelPlaces& places) {
  places.bones.resize(act.bones.size());
  for (size_t t = 0; t < act.bones.size(); ++t) {
    const ActBone& a = act.bones[t];
    BonePlace& p = places.bones[static_cast<size_t>(tableToRig[t])];
    p.table = static_cast<uint32_t>(t);
    p.controlAt = a.controlAt == 0 ? 0 : actAt + a.controlAt;
    p.control = a.control;
    p.actorSpace = a.inheritanceFlag != 1 && a.parent >= 0;
  }
}

MeshPlace placeMesh(const GplMesh& mesh, size_t gplAt) {
  MeshPlace p;
  auto fromBlock = [gplAt](GplArray a) {
    if (a.count != 0) a.offset += gplAt;
    return a;
  };
  p.position = fromBlock(mesh.positionArray);
  p.normal = fromBlock(mesh.normalArray);
  p.uv = fromBlock(mesh.uvArray);
  p.skinned = mesh.positionCompCount == kSkinnedCompCount;
  return p;
}

}  // namespace rigport::sluggers
