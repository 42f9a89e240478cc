#include "demo/round_trip.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/key_sample.hpp"
#include "core/track_space.hpp"

namespace rigport {
namespace {

class Worst {
 public:
  template <class Describe>
  void see(double value, Describe&& describe) {
    if (!(value <= result_.max)) {  // NaN counts as worst
      result_.max = value;
      result_.where = describe();
    }
  }
  RoundTripError take() { return std::move(result_); }

 private:
  RoundTripError result_;
};

double maxDiff(const glm::vec3& a, const glm::vec3& b) {
  const glm::vec3 d = glm::abs(a - b);
  return std::max({d.x, d.y, d.z});
}

double maxDiff(const glm::quat& a, glm::quat b) {
  if (glm::dot(a, b) < 0.0f) b = -b;
  return std::max({std::fabs(a.x - b.x), std::fabs(a.y - b.y), std::fabs(a.z - b.z), std::fabs(a.w - b.w)});
}

double maxDiff(const glm::mat4& a, const glm::mat4& b) {
  double m = 0.0;
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) m = std::max<double>(m, std::fabs(a[c][r] - b[c][r]));
  return m;
}

std::vector<glm::mat4> inverseBinds(const Skeleton& sk) {
  std::vector<glm::mat4> out = sk.worldBindMatrices();
  for (size_t i = 0; i < out.size(); ++i) out[i] = sk.bones[i].inverseBind ? *sk.bones[i].inverseBind : glm::inverse(out[i]);
  return out;
}

template <class T>
void compareKeys(Worst& worst, const Keys<T>& source, const Keys<T>* result, const T& rest, const std::string& what) {
  for (size_t k = 0; k < source.times.size() && k < source.values.size(); ++k) {
    const float t = source.times[k];
    const T got = result ? sampleKeys(*result, t, rest) : rest;
    worst.see(maxDiff(source.values[k], got), [&] { return fmt::format("{} at {:.3f} s", what, t); });
  }
}

Error structural(std::string message) { return makeError(ErrorCode::Invalid, std::move(message)); }

}  // namespace

Result<RoundTripError> compareRigs(const Rig& source, const Rig& result) {
  Worst worst;
  const auto& sb = source.skeleton.bones;
  const auto& rb = result.skeleton.bones;
  // sourceToResult[i]: the result's bone with source bone i's name.
  std::vector<size_t> sourceToResult(sb.size());
  for (size_t i = 0; i < sb.size(); ++i) {
    const int32_t j = result.skeleton.find(sb[i].name);
    if (j < 0) return structural(fmt::format("bone '{}' is missing after the round trip", sb[i].name));
    sourceToResult[i] = static_cast<size_t>(j);
  }
  const std::vector<glm::mat4> sIbm = inverseBinds(source.skeleton), rIbm = inverseBinds(result.skeleton);
  for (size_t i = 0; i < sb.size(); ++i) {
    const Bone& a = sb[i];
    const Bone& b = rb[sourceToResult[i]];
    worst.see(maxDiff(a.translation, b.translation), [&] { return fmt::format("bone {} translation", a.name); });
    worst.see(maxDiff(a.rotation, b.rotation), [&] { return fmt::format("bone {} rotation", a.name); });
    worst.see(maxDiff(a.scale, b.scale), [&] { return fmt::format("bone {} scale", a.name); });
    worst.see(maxDiff(sIbm[i], rIbm[sourceToResult[i]]), [&] { return fmt::format("bone {} inverse bind", a.name); });
  }

  if (source.meshes.size() != result.meshes.size()) {
    return structural(fmt::format("{} meshes became {}", source.meshes.size(), result.meshes.size()));
  }
  for (size_t m = 0; m < source.meshes.size(); ++m) {
    const Mesh& a = source.meshes[m];
    const Mesh& b = result.meshes[m];
    if (a.vertexCount() != b.vertexCount()) {
      return structural(fmt::format("mesh {}: {} vertices became {}", m, a.vertexCount(), b.vertexCount()));
    }
    if (a.skinned() != b.skinned()) return structural(fmt::format("mesh {}: skinning was {}", m, a.skinned() ? "lost" : "added"));
    for (size_t v = 0; v < a.vertexCount(); ++v) {
      worst.see(maxDiff(a.positions[v], b.positions[v]), [&] { return fmt::format("mesh {} vertex {} position", m, v); });
      if (!a.skinned()) continue;
      std::map<size_t, double> weights;  // result bone index -> source weight minus result weight
      for (uint32_t i = a.influenceOffsets[v]; i < a.influenceOffsets[v + 1]; ++i) {
        weights[sourceToResult[a.influences[i].bone]] += a.influences[i].weight;
      }
      for (uint32_t i = b.influenceOffsets[v]; i < b.influenceOffsets[v + 1]; ++i) weights[b.influences[i].bone] -= b.influences[i].weight;
      for (const auto& entry : weights) {  // no structured binding: clang 14 cannot capture one in a lambda
        const size_t bone = entry.first;
        worst.see(std::fabs(entry.second), [&] { return fmt::format("mesh {} vertex {} weight of {}", m, v, rb[bone].name); });
      }
    }
  }

  for (size_t ai = 0; ai < source.animations.size(); ++ai) {
    // Compared as absolute local TRS, whatever space either side keeps its tracks in.
    Animation a = source.animations[ai];
    makeAbsolute(a, source.skeleton);
    std::optional<Animation> resultAnim;
    if (ai < result.animations.size()) {
      resultAnim = result.animations[ai];
      makeAbsolute(*resultAnim, result.skeleton);
    }
    const Animation* b = resultAnim ? &*resultAnim : nullptr;
    for (const BoneTrack& st : a.tracks) {
      if (st.bone < 0) continue;
      const size_t rbone = sourceToResult[static_cast<size_t>(st.bone)];
      const BoneTrack* rt = nullptr;
      if (b != nullptr) {
        for (const BoneTrack& t : b->tracks)
          if (t.bone >= 0 && static_cast<size_t>(t.bone) == rbone) rt = &t;
      }
      const Bone& rest = rb[rbone];
      const std::string what = fmt::format("{}/{}", a.name, rest.name);
      compareKeys(worst, st.translation, rt ? &rt->translation : nullptr, rest.translation, what + " translation");
      compareKeys(worst, st.rotation, rt ? &rt->rotation : nullptr, rest.rotation, what + " rotation");
      compareKeys(worst, st.scale, rt ? &rt->scale : nullptr, rest.scale, what + " scale");
    }
  }
  return worst.take();
}

}  // namespace rigport
