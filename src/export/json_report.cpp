#include "export/json_report.hpp"

#include <algorithm>

#include "core/hash.hpp"

namespace rigport {
namespace {

using Json = nlohmann::ordered_json;

Json vec(const glm::vec2& v) { return Json::array({v.x, v.y}); }
Json vec(const glm::vec3& v) { return Json::array({v.x, v.y, v.z}); }
Json vec(const glm::quat& q) { return Json::array({q.x, q.y, q.z, q.w}); }
Json vec(float f) { return f; }

Json matrix(const glm::mat4& m) {
  Json out = Json::array();
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) out.push_back(m[c][r]);
  return out;
}

template <class T>
Json optional(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json axes(const AxisSystem& a) {
  static const char* const kAxisNames[] = {"+X", "-X", "+Y", "-Y", "+Z", "-Z"};
  return Json{{"up", a.up == AxisSystem::Up::Y ? "Y" : "Z"},
              {"forward", kAxisNames[static_cast<int>(a.forward)]},
              {"rightHanded", a.rightHanded},
              {"metresPerUnit", a.metresPerUnit}};
}

Json warnings(const Provenance& p) {
  Json out = Json::array();
  for (const Warning& w : p.warnings) out.push_back(Json{{"code", w.code}, {"message", w.message}, {"count", w.count}});
  return out;
}

Json joints(const Skeleton& sk) {
  Json out = Json::array();
  for (uint32_t j : sk.jointList()) out.push_back(j);
  return out;
}

Json bone(const Bone& b, size_t index) {
  return Json{{"index", index},
              {"name", b.name},
              {"parent", b.parent},
              {"translation", vec(b.translation)},
              {"rotation", vec(b.rotation)},
              {"scale", vec(b.scale)},
              {"inverseBind", b.inverseBind ? matrix(*b.inverseBind) : Json(nullptr)},
              {"id", optional(b.id)},
              {"nameHash", optional(b.nameHash)},
              {"nameHashKind", hashKindName(b.nameHashKind)}};
}

template <class T>
Json list(const std::vector<T>& values) {
  Json out = Json::array();
  for (const T& v : values) out.push_back(vec(v));
  return out;
}

Json meshCounts(const MeshCounts& c) {
  return Json{{"name", c.name},
              {"vertices", c.vertices},
              {"triangles", c.triangles},
              {"skinned", c.skinned},
              {"maxInfluences", c.maxInfluences},
              {"attachBone", c.attachBone}};
}

Json meshFull(const Mesh& m) {
  Json out = meshCounts(countMesh(m));
  out["positions"] = list(m.positions);
  out["normals"] = list(m.normals);
  out["uvs"] = list(m.uvs);
  out["indices"] = m.indices;
  Json influences = Json::array();
  for (size_t v = 0; v + 1 < m.influenceOffsets.size(); ++v) {
    Json vertex = Json::array();
    for (uint32_t i = m.influenceOffsets[v]; i < m.influenceOffsets[v + 1]; ++i) {
      vertex.push_back(Json{{"bone", m.influences[i].bone}, {"weight", m.influences[i].weight}});
    }
    influences.push_back(std::move(vertex));
  }
  out["influences"] = std::move(influences);
  Json targets = Json::array();
  for (const MorphTarget& t : m.morphTargets) {
    targets.push_back(Json{{"name", t.name}, {"positionDeltas", list(t.positionDeltas)}, {"normalDeltas", list(t.normalDeltas)}});
  }
  out["morphTargets"] = std::move(targets);
  out["morphWeights"] = m.morphWeights;
  return out;
}

template <class T>
Json keys(const Keys<T>& k) {
  static constexpr const char* kNames[] = {"step", "linear", "cubicSpline"};
  Json out{{"interpolation", kNames[static_cast<size_t>(k.interpolation)]}, {"times", k.times}, {"values", list(k.values)}};
  if (k.interpolation == Interpolation::CubicSpline) {
    out["inTangents"] = list(k.inTangents);  // value units per second (rig.hpp, Keys)
    out["outTangents"] = list(k.outTangents);
  }
  return out;
}

Json boneRef(const BoneRef& r) {
  return Json{{"name", r.name},
              {"id", optional(r.id)},
              {"nameHash", optional(r.nameHash)},
              {"nameHashKind", hashKindName(r.nameHashKind)},
              {"position", optional(r.position)},
              {"aliases", r.aliases}};
}

Json animationFull(const Animation& a, const Skeleton& sk) {
  Json tracks = Json::array();
  for (const BoneTrack& t : a.tracks) {
    const bool bound = t.bone >= 0 && static_cast<size_t>(t.bone) < sk.bones.size();
    tracks.push_back(Json{{"bone", t.bone},
                          {"boneName", bound ? Json(sk.bones[static_cast<size_t>(t.bone)].name) : Json(nullptr)},
                          {"target", boneRef(t.target)},
                          {"space", t.space == TrackSpace::Absolute ? "absolute" : "relativeToBind"},
                          {"translation", keys(t.translation)},
                          {"rotation", keys(t.rotation)},
                          {"scale", keys(t.scale)}});
  }
  Json scalars = Json::array();
  for (const ScalarChannel& s : a.scalars) {
    scalars.push_back(Json{{"name", s.name}, {"target", s.target}, {"keys", keys(s.keys)}});
  }
  Json morphWeights = Json::array();
  for (const MorphWeightTrack& m : a.morphWeights) {
    static constexpr const char* kNames[] = {"step", "linear", "cubicSpline"};
    Json track{{"mesh", m.mesh}, {"meshIndex", m.meshIndex}, {"targets", m.targetCount}, {"interpolation", kNames[static_cast<size_t>(m.interpolation)]},
               {"times", m.times}, {"weights", m.weights}};  // targets per key, key by key
    if (m.interpolation == Interpolation::CubicSpline) {
      track["inTangents"] = m.inTangents;
      track["outTangents"] = m.outTangents;
    }
    morphWeights.push_back(std::move(track));
  }
  Json events = Json::array();
  for (const Event& e : a.events) events.push_back(Json{{"time", e.time}, {"type", e.type}, {"payload", e.payload}});
  return Json{{"name", a.name},
              {"duration", a.duration},
              {"keyCount", a.keyCount()},
              {"tracks", std::move(tracks)},
              {"scalars", std::move(scalars)},
              {"morphWeights", std::move(morphWeights)},
              {"events", std::move(events)},
              {"extras", a.extras}};  // what the reader kept beyond the model (a CLIP's actor, source, IK chains)
}

Json summary(const Rig& rig, const std::vector<MeshCounts>& counts) {
  Json anims = Json::array();
  for (const Animation& a : rig.animations) {
    anims.push_back(Json{{"name", a.name}, {"duration", a.duration}, {"tracks", a.tracks.size()}, {"keys", storedKeyCount(a)}});
  }
  Json meshes = Json::array();
  for (const MeshCounts& c : counts) meshes.push_back(meshCounts(c));
  return Json{{"file", rig.provenance.file},
              {"format", rig.provenance.format},
              {"name", rig.name},
              {"axes", axes(rig.provenance.axes)},
              {"bones", rig.skeleton.bones.size()},
              {"joints", rig.skeleton.jointList().size()},
              {"meshes", std::move(meshes)},
              {"vertices", totalVertices(counts)},
              {"maxInfluences", maxInfluences(counts)},
              {"animations", std::move(anims)},
              {"warnings", warnings(rig.provenance)}};
}

Json full(const Rig& rig) {
  Json bones = Json::array();
  for (size_t i = 0; i < rig.skeleton.bones.size(); ++i) bones.push_back(bone(rig.skeleton.bones[i], i));
  Json meshes = Json::array();
  for (const Mesh& m : rig.meshes) meshes.push_back(meshFull(m));
  Json anims = Json::array();
  for (const Animation& a : rig.animations) anims.push_back(animationFull(a, rig.skeleton));
  return Json{{"name", rig.name},
              {"provenance",
               Json{{"format", rig.provenance.format}, {"file", rig.provenance.file}, {"axes", axes(rig.provenance.axes)},
                    {"warnings", warnings(rig.provenance)}}},
              {"skeleton", Json{{"bones", std::move(bones)}, {"joints", joints(rig.skeleton)}}},
              {"meshes", std::move(meshes)},
              {"animations", std::move(anims)},
              {"extras", rig.extras}};  // what a reader found that the model has no field for
}

}  // namespace

MeshCounts countMesh(const Mesh& m) {
  return MeshCounts{m.name, m.vertexCount(), m.indices.size() / 3, m.skinned(), m.maxInfluences(), m.attachBone};
}

std::vector<MeshCounts> countMeshes(const Rig& rig) {
  std::vector<MeshCounts> counts;
  for (const Mesh& m : rig.meshes) counts.push_back(countMesh(m));
  return counts;
}

size_t storedKeyCount(const Animation& anim) {
  if (anim.extras.is_object()) {
    for (const auto& [format, fields] : anim.extras.items()) {
      if (fields.is_object() && fields.contains("storedKeys") && fields["storedKeys"].is_number_unsigned()) {
        return fields["storedKeys"].get<size_t>();
      }
    }
  }
  return anim.keyCount();
}

size_t totalVertices(const std::vector<MeshCounts>& meshes) {
  size_t n = 0;
  for (const MeshCounts& c : meshes) n += c.vertices;
  return n;
}

size_t maxInfluences(const std::vector<MeshCounts>& meshes) {
  size_t n = 0;
  for (const MeshCounts& c : meshes) n = std::max(n, c.maxInfluences);
  return n;
}

nlohmann::ordered_json rigToJson(const Rig& rig, JsonDetail detail) {
  return detail == JsonDetail::Full ? full(rig) : summary(rig, countMeshes(rig));
}

nlohmann::ordered_json rigSummaryToJson(const Rig& rig, const std::vector<MeshCounts>& meshes) { return summary(rig, meshes); }

AnimationCounts countAnimation(const Animation& anim) {
  return AnimationCounts{anim.name, anim.duration, anim.tracks.size(), storedKeyCount(anim), anim.events.size()};
}

std::vector<AnimationCounts> countAnimations(const std::vector<Animation>& animations) {
  std::vector<AnimationCounts> counts;
  for (const Animation& a : animations) counts.push_back(countAnimation(a));
  return counts;
}

nlohmann::ordered_json clipSetToJson(const ClipSet& clips, const std::vector<AnimationCounts>& animations) {
  Json anims = Json::array();
  for (const AnimationCounts& a : animations) {
    anims.push_back(Json{{"name", a.name}, {"duration", a.duration}, {"tracks", a.tracks}, {"keys", a.keys}, {"events", a.events}});
  }
  return Json{{"item", clips.item},
              {"name", clips.name},
              {"format", clips.provenance.format},
              {"axes", axes(clips.provenance.axes)},
              {"wants", clips.wants ? Json{{"name", clips.wants->name}, {"item", clips.wants->item}} : Json(nullptr)},
              {"animations", std::move(anims)},
              {"warnings", warnings(clips.provenance)}};
}

nlohmann::ordered_json itemsToJson(const std::vector<ItemInfo>& items) {
  Json out = Json::array();
  for (const ItemInfo& i : items) out.push_back(Json{{"id", i.id}, {"kind", i.kind}, {"name", i.name}, {"bytes", i.bytes}});
  return out;
}

nlohmann::ordered_json coverageToJson(const BindReport& report) {
  Json dropped = Json::array();
  for (const BindReport::Dropped& d : report.dropped) {
    dropped.push_back(Json{{"reason", d.reason}, {"count", d.count}, {"examples", d.examples}});
  }
  return Json{{"clips", report.clips}, {"tracks", report.tracks}, {"bound", report.bound}, {"dropped", std::move(dropped)}};
}

nlohmann::ordered_json errorToJson(const Error& error) {
  Json trail = Json::array();
  for (const ErrorFrame& f : error.trail()) trail.push_back(Json{{"where", f.where}, {"offset", optional(f.offset)}});
  return Json{{"code", errorCodeName(error.code)},
              {"file", error.file},
              {"trail", std::move(trail)},
              {"message", error.message},
              {"text", error.describe()}};
}

}  // namespace rigport
