// Animations (format note gltf_ecosystem.md §1.3): each channel on a bone's translation, rotation
// or scale becomes that component's keys of the bone's track, with the sampler's interpolation
// (STEP, LINEAR, CUBICSPLINE; a cubic sampler's outputs are in-tangent, value, out-tangent per key,
// per second as rig.hpp keeps them). Rotations are float or normalised integers. rigport's own
// animation extras (duration, events, scalarChannels; gltf_animation.cpp in src/export) and the
// root's animationsWithoutChannels come back as they were written. A weights channel becomes a
// morph weight track of the node's mesh. Channels on nodes that are neither bones nor meshes with
// morph targets have no place in the model: skipped with a warning.
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "formats/gltf/gltf_accessor.hpp"
#include "formats/gltf/gltf_reader.hpp"

namespace rigport::gltf_in {
namespace {

const AccessorRules kTimeRules{{TINYGLTF_TYPE_SCALAR}, {TINYGLTF_COMPONENT_TYPE_FLOAT}};
const AccessorRules kVec3Rules{{TINYGLTF_TYPE_VEC3}, {TINYGLTF_COMPONENT_TYPE_FLOAT}};
// Spec §3.11: weights are float or normalised (signed or unsigned) bytes and shorts.
const AccessorRules kWeightRules{{TINYGLTF_TYPE_SCALAR},
                                 {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE,
                                  TINYGLTF_COMPONENT_TYPE_SHORT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT},
                                 true};
const AccessorRules kRotationRules{{TINYGLTF_TYPE_VEC4},
                                   {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE,
                                    TINYGLTF_COMPONENT_TYPE_SHORT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT},
                                   true};

Interpolation interpolationNamed(const std::string& name, bool& known) {
  known = true;
  if (name == "STEP") return Interpolation::Step;
  if (name == "CUBICSPLINE") return Interpolation::CubicSpline;
  known = name == "LINEAR" || name.empty();
  return Interpolation::Linear;
}

glm::vec3 vec3At(const std::vector<float>& v, size_t i) { return {v[i * 3], v[i * 3 + 1], v[i * 3 + 2]}; }
glm::quat quatAt(const std::vector<float>& v, size_t i) { return glm::quat(v[i * 4 + 3], v[i * 4], v[i * 4 + 1], v[i * 4 + 2]); }

// Sampler `s` of animation `a`, its interpolation and key times (checked: finite, not going back).
Result<const tinygltf::AnimationSampler*> readInput(const Document& doc, ReadContext& ctx, size_t a, int s, Interpolation& interpolation,
                                                    std::vector<float>& times, Provenance& warnings) {
  const tinygltf::Animation& anim = doc.model.animations[a];
  const std::string at = fmt::format("animations[{}].samplers[{}]", a, s);
  if (s < 0 || static_cast<size_t>(s) >= anim.samplers.size()) {
    return fieldError(doc, fmt::format("animations[{}].channels", a), ErrorCode::BadValue, fmt::format("names sampler {}, but the animation has {}", s, anim.samplers.size()));
  }
  const tinygltf::AnimationSampler& sampler = anim.samplers[static_cast<size_t>(s)];
  bool known = true;
  interpolation = interpolationNamed(sampler.interpolation, known);
  if (!known) warnings.warn("unknown-interpolation", fmt::format("{}.interpolation '{}' is not a glTF mode; read as LINEAR", at, sampler.interpolation));
  int comps = 0;
  RP_ASSIGN(times, readFloats(doc, ctx, sampler.input, kTimeRules, at + ".input", comps));
  size_t repeated = 0, firstRepeat = 0;
  for (size_t k = 0; k < times.size(); ++k) {
    if (!std::isfinite(times[k]) || (k > 0 && times[k] < times[k - 1])) {
      return fieldError(doc, fmt::format("accessors[{}]", sampler.input), ErrorCode::BadValue,
                        fmt::format("key time {} ({}) is not finite or goes back in time ({}.input)", k, times[k], at));
    }
    if (k > 0 && times[k] == times[k - 1] && repeated++ == 0) firstRepeat = k;
  }
  if (repeated > 0) {
    // Spec: input times are strictly increasing; at a repeated time clients differ on which key they show.
    warnings.warn("equal-key-times", fmt::format("{}.input: {} key time{} repeat the time before (first: key {} at {} s); glTF needs strictly "
                                                 "increasing times: of equal times the last key is kept (as the glTF exporter does)",
                                                 at, repeated, repeated == 1 ? "" : "s", firstRepeat, times[firstRepeat]));
  }
  return &sampler;
}

// One sampler's keys into `keys`.
template <class T>
Status readSampler(const Document& doc, ReadContext& ctx, size_t a, int s, Keys<T>& keys, Provenance& warnings) {
  const std::string at = fmt::format("animations[{}].samplers[{}]", a, s);
  RP_ASSIGN(const tinygltf::AnimationSampler* found, readInput(doc, ctx, a, s, keys.interpolation, keys.times, warnings));
  const tinygltf::AnimationSampler& sampler = *found;
  int comps = 0;
  constexpr bool isQuat = std::is_same_v<T, glm::quat>;
  RP_ASSIGN(const std::vector<float> out, readFloats(doc, ctx, sampler.output, isQuat ? kRotationRules : kVec3Rules, at + ".output", comps));
  const size_t n = keys.times.size();
  const size_t perKey = keys.interpolation == Interpolation::CubicSpline ? 3 : 1;
  const size_t width = isQuat ? 4 : 3;
  if (out.size() / width != n * perKey) {
    return fieldError(doc, fmt::format("accessors[{}].count", sampler.output), ErrorCode::BadValue,
                      fmt::format("{} outputs for {} key times; {} needs {} ({}.output)", out.size() / width, n, sampler.interpolation.empty() ? "LINEAR" : sampler.interpolation,
                                  n * perKey, at));
  }
  const auto value = [&](size_t i) {
    if constexpr (isQuat) return quatAt(out, i);
    else return vec3At(out, i);
  };
  keys.values.reserve(n);
  size_t kept = 0;
  for (size_t k = 0; k < n; ++k) {
    if (k + 1 < n && keys.times[k + 1] == keys.times[k]) continue;  // a repeated time: the last key wins
    keys.times[kept++] = keys.times[k];
    if (perKey == 3) {
      keys.inTangents.push_back(value(k * 3));
      keys.values.push_back(value(k * 3 + 1));
      keys.outTangents.push_back(value(k * 3 + 2));
    } else {
      keys.values.push_back(value(k));
    }
  }
  keys.times.resize(kept);
  return Ok{};
}

// A weights sampler (Spec §3.11: keys × targets outputs, ×3 for CUBICSPLINE: in-tangents, values,
// out-tangents of every target per key) into `track`, whose targetCount is set.
Status readWeightsSampler(const Document& doc, ReadContext& ctx, size_t a, int s, MorphWeightTrack& track, Provenance& warnings) {
  const std::string at = fmt::format("animations[{}].samplers[{}]", a, s);
  RP_ASSIGN(const tinygltf::AnimationSampler* sampler, readInput(doc, ctx, a, s, track.interpolation, track.times, warnings));
  int comps = 0;
  RP_ASSIGN(const std::vector<float> out, readFloats(doc, ctx, sampler->output, kWeightRules, at + ".output", comps));
  const size_t n = track.times.size(), w = track.targetCount;
  const size_t perKey = track.interpolation == Interpolation::CubicSpline ? 3 : 1;
  if (out.size() != n * perKey * w) {
    return fieldError(doc, fmt::format("accessors[{}].count", sampler->output), ErrorCode::BadValue,
                      fmt::format("{} weights for {} key times of {} morph targets; {} needs {} ({}.output)", out.size(), n, w,
                                  sampler->interpolation.empty() ? "LINEAR" : sampler->interpolation, n * perKey * w, at));
  }
  size_t kept = 0;
  for (size_t k = 0; k < n; ++k) {
    if (k + 1 < n && track.times[k + 1] == track.times[k]) continue;  // a repeated time: the last key wins
    track.times[kept++] = track.times[k];
    const auto row = out.begin() + static_cast<std::ptrdiff_t>(k * perKey * w);
    if (perKey == 3) {
      track.inTangents.insert(track.inTangents.end(), row, row + static_cast<std::ptrdiff_t>(w));
      track.weights.insert(track.weights.end(), row + static_cast<std::ptrdiff_t>(w), row + static_cast<std::ptrdiff_t>(2 * w));
      track.outTangents.insert(track.outTangents.end(), row + static_cast<std::ptrdiff_t>(2 * w), row + static_cast<std::ptrdiff_t>(3 * w));
    } else {
      track.weights.insert(track.weights.end(), row, row + static_cast<std::ptrdiff_t>(w));
    }
  }
  track.times.resize(kept);
  return Ok{};
}

Keys<float> scalarKeys(const nlohmann::json& j) {
  Keys<float> keys;
  bool known = true;
  keys.interpolation = interpolationNamed(extraOr(j, "interpolation", std::string("LINEAR")), known);
  const auto floats = [&](const char* name) {
    std::vector<float> out;
    if (auto it = j.find(name); it != j.end() && it->is_array()) {
      for (const auto& v : *it) out.push_back(v.is_number() ? v.get<float>() : NAN);
    }
    return out;
  };
  keys.times = floats("times");
  keys.values = floats("values");
  keys.inTangents = floats("inTangents");
  keys.outTangents = floats("outTangents");
  return keys;
}

// rigport's animation extras into the animation; whatever else they hold stays in its extras.
void takeAnimationExtras(nlohmann::json extras, Animation& anim) {
  if (!extras.is_object()) return;
  if (auto it = extras.find("duration"); it != extras.end() && it->is_number()) {
    anim.duration = it->get<float>();
    extras.erase(it);
  }
  if (auto it = extras.find("events"); it != extras.end() && it->is_array()) {
    for (const auto& e : *it) {
      if (!e.is_object()) continue;
      Event event;
      event.time = extraOr(e, "time", 0.0f);
      event.type = extraOr(e, "type", std::string());
      event.payload = extraOr(e, "payload", std::string());
      anim.events.push_back(std::move(event));
    }
    extras.erase(it);
  }
  if (auto it = extras.find("scalarChannels"); it != extras.end() && it->is_array()) {
    for (const auto& s : *it) {
      if (!s.is_object()) continue;
      ScalarChannel channel;
      channel.name = extraOr(s, "name", std::string());
      channel.target = extraOr(s, "target", std::string());
      channel.keys = scalarKeys(s);
      anim.scalars.push_back(std::move(channel));
    }
    extras.erase(it);
  }
  extras.erase("unboundTracks");  // a report of the export, not data
  if (!extras.empty()) anim.extras = std::move(extras);
}

float lastTime(const Animation& anim) {
  float end = 0.0f;
  for (const BoneTrack& t : anim.tracks) {
    for (const auto* times : {&t.translation.times, &t.rotation.times, &t.scale.times}) {
      if (!times->empty()) end = std::max(end, times->back());
    }
  }
  for (const MorphWeightTrack& m : anim.morphWeights) {
    if (!m.times.empty()) end = std::max(end, m.times.back());
  }
  return end;
}

// A weights channel into a morph weight track of the rig holding the node's mesh. A node without a
// mesh, or whose mesh has no targets: a warning naming the channel, skipped; a second channel on
// one node: the first is kept.
Status readWeightsChannel(const Document& doc, ReadContext& ctx, const Layout& layout, size_t a, size_t c, std::vector<Rig>& rigs,
                          std::map<size_t, Animation>& perRig, Provenance& file) {
  const tinygltf::Animation& ga = doc.model.animations[a];
  const tinygltf::AnimationChannel& ch = ga.channels[c];
  const std::string at = fmt::format("animations[{}].channels[{}]", a, c);
  const int node = ch.target_node;
  const auto [rig, mesh] = node >= 0 && static_cast<size_t>(node) < layout.meshOfNode.size() ? layout.meshOfNode[static_cast<size_t>(node)]
                                                                                            : std::pair{-1, -1};
  if (mesh < 0 || rigs[static_cast<size_t>(rig)].meshes[static_cast<size_t>(mesh)].morphTargets.empty()) {
    file.warn("morph-weights-skipped", fmt::format("{} ('{}'): a weights channel on node {}, which {}; skipped", at, ga.name, node,
                                                   mesh < 0 ? "holds no mesh of a rig" : "has no morph targets"));
    return Ok{};
  }
  const Mesh& target = rigs[static_cast<size_t>(rig)].meshes[static_cast<size_t>(mesh)];
  Animation& anim = perRig[static_cast<size_t>(rig)];
  for (const MorphWeightTrack& other : anim.morphWeights) {
    if (other.meshIndex == mesh) {
      rigs[static_cast<size_t>(rig)].provenance.warn("duplicate-channel", fmt::format("{}: a second weights channel for node {}; the first is kept", at, node));
      return Ok{};
    }
  }
  MorphWeightTrack track;
  track.mesh = target.name;
  track.meshIndex = mesh;
  track.targetCount = static_cast<uint32_t>(target.morphTargets.size());
  RP_CHECK(readWeightsSampler(doc, ctx, a, ch.sampler, track, rigs[static_cast<size_t>(rig)].provenance));
  anim.morphWeights.push_back(std::move(track));
  return Ok{};
}

}  // namespace

Status readAnimations(const Document& doc, ReadContext& ctx, const Layout& layout, std::vector<Rig>& rigs, Provenance& file) {
  const auto& m = doc.model;
  for (size_t a = 0; a < m.animations.size(); ++a) {
    const tinygltf::Animation& ga = m.animations[a];
    std::map<size_t, Animation> perRig;  // an animation moving bones of two rigs is split between them
    std::map<std::pair<size_t, int>, size_t> trackOf;
    for (size_t c = 0; c < ga.channels.size(); ++c) {
      const tinygltf::AnimationChannel& ch = ga.channels[c];
      const std::string at = fmt::format("animations[{}].channels[{}]", a, c);
      const int node = ch.target_node;
      const bool carrier = node >= 0 && static_cast<size_t>(node) < m.nodes.size() && layout.translationOfNode[static_cast<size_t>(node)] >= 0;
      // A compensation node's scale is the parent's inverse, which the parent's own channel gives,
      // and it does not turn: only its translation (the child's) is kept. Blender, which makes it
      // a bone, keys its rotation (the identity) and the child's translation (zero) too.
      if (carrier && ch.target_path != "translation") continue;
      const bool carried = node >= 0 && static_cast<size_t>(node) < m.nodes.size() && layout.parent[static_cast<size_t>(node)] >= 0 &&
                           layout.translationOfNode[static_cast<size_t>(layout.parent[static_cast<size_t>(node)])] >= 0;
      if (carried && ch.target_path == "translation") continue;
      // The path first: a weights channel targets a mesh node, and is a shape-key animation, not a
      // channel on the wrong node.
      if (ch.target_path == "weights") {
        RP_CHECK(readWeightsChannel(doc, ctx, layout, a, c, rigs, perRig, file));
        continue;
      }
      if (ch.target_path != "translation" && ch.target_path != "rotation" && ch.target_path != "scale") {
        file.warn("channel-path-skipped", fmt::format("{} ('{}'): path '{}' is not a glTF path; skipped", at, ga.name, ch.target_path));
        continue;
      }
      if (!carrier && (node < 0 || static_cast<size_t>(node) >= m.nodes.size() || layout.boneOfNode[static_cast<size_t>(node)] < 0)) {
        file.warn("channel-not-on-bone", fmt::format("{} ('{}'): targets a node that is not a bone; skipped", at, ga.name));
        continue;
      }
      const size_t rig = static_cast<size_t>(layout.rigOfNode[static_cast<size_t>(node)]);
      const int bone = carrier ? layout.translationOfNode[static_cast<size_t>(node)] : layout.boneOfNode[static_cast<size_t>(node)];
      Animation& anim = perRig[rig];
      auto [it, fresh] = trackOf.try_emplace({rig, bone}, anim.tracks.size());
      if (fresh) {
        BoneTrack track;
        const Bone& b = rigs[rig].skeleton.bones[static_cast<size_t>(bone)];
        track.target = BoneRef{b.name, b.id, b.nameHash, std::nullopt, b.nameHashKind, {}};
        track.bone = bone;
        anim.tracks.push_back(std::move(track));
      }
      BoneTrack& track = anim.tracks[it->second];
      const bool duplicate = (ch.target_path == "translation" && !track.translation.empty()) ||
                             (ch.target_path == "rotation" && !track.rotation.empty()) || (ch.target_path == "scale" && !track.scale.empty());
      if (duplicate) {
        rigs[rig].provenance.warn("duplicate-channel", fmt::format("{}: a second {} channel for node {}; the first is kept", at, ch.target_path, node));
        continue;
      }
      Provenance& warnings = rigs[rig].provenance;
      if (ch.target_path == "translation") RP_CHECK(readSampler(doc, ctx, a, ch.sampler, track.translation, warnings));
      if (ch.target_path == "rotation") RP_CHECK(readSampler(doc, ctx, a, ch.sampler, track.rotation, warnings));
      if (ch.target_path == "scale") RP_CHECK(readSampler(doc, ctx, a, ch.sampler, track.scale, warnings));
    }
    if (perRig.empty()) {
      file.warn("animation-skipped", fmt::format("animations[{}] ('{}'): no channel moves a bone or a shape key; skipped", a, ga.name));
      continue;
    }
    for (auto& [rig, anim] : perRig) {
      anim.name = ga.name;
      takeAnimationExtras(extrasOf(ga.extras_json_string), anim);
      if (anim.duration <= 0.0f) anim.duration = lastTime(anim);
      rigs[rig].animations.push_back(std::move(anim));
    }
  }
  // rigport writes clips with events or scalar channels but no bone channel here (glTF requires
  // at least one channel per animation); a rigport file holds one rig.
  const nlohmann::json root = extrasOf(m.extras_json_string);
  if (root.is_object() && !rigs.empty()) {
    if (auto it = root.find("animationsWithoutChannels"); it != root.end() && it->is_array()) {
      for (const auto& entry : *it) {
        if (!entry.is_object()) continue;
        Animation anim;
        anim.name = extraOr(entry, "name", std::string());
        if (auto e = entry.find("extras"); e != entry.end()) takeAnimationExtras(*e, anim);
        rigs[0].animations.push_back(std::move(anim));
      }
    }
  }
  return Ok{};
}

}  // namespace rigport::gltf_in
