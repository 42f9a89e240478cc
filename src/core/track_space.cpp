#include "core/track_space.hpp"

namespace rigport {
namespace {

// Applies value -> linear(value) + offset to the values and linear() alone to the tangents.
template <class T, class Linear>
void mapKeys(Keys<T>& keys, const Linear& linear, const T& offset) {
  for (T& v : keys.values) v = linear(v) + offset;
  for (T& t : keys.inTangents) t = linear(t);
  for (T& t : keys.outTangents) t = linear(t);
}

}  // namespace

bool relativeToBind(const BoneTrack& track, const Skeleton& skeleton) {
  return track.space != TrackSpace::Absolute && track.bone >= 0 && static_cast<size_t>(track.bone) < skeleton.bones.size();
}

void makeAbsolute(BoneTrack& track, const Skeleton& skeleton) {
  if (!relativeToBind(track, skeleton)) return;
  const Bone& bind = skeleton.bones[static_cast<size_t>(track.bone)];
  mapKeys(track.translation, [&](const glm::vec3& d) { return bind.rotation * (bind.scale * d); }, bind.translation);
  for (glm::quat& q : track.rotation.values) q = bind.rotation * q;
  for (glm::quat& t : track.rotation.inTangents) t = bind.rotation * t;
  for (glm::quat& t : track.rotation.outTangents) t = bind.rotation * t;
  mapKeys(track.scale, [&](const glm::vec3& d) { return bind.scale * d; }, glm::vec3(0.0f));
  track.space = TrackSpace::Absolute;
}

void makeAbsolute(Animation& anim, const Skeleton& skeleton) {
  for (BoneTrack& track : anim.tracks) makeAbsolute(track, skeleton);
}

}  // namespace rigport
