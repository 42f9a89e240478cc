#include "demo/character.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace rigport {
namespace {

constexpr float kPi = std::numbers::pi_v<float>;

// One bone as placed in the bind pose: world joint position, the tube radius around its segment,
// and the offset of its segment's far end for a bone that has one (leaves, the head under its hair);
// other bones end at their first child.
struct BoneSpec {
  std::string name;
  int32_t parent;
  glm::vec3 position;
  float radius;
  glm::vec3 tip{0.0f};
};

class SpecList {
 public:
  int32_t add(std::string name, int32_t parent, glm::vec3 offsetFromParent, float radius, glm::vec3 tip = glm::vec3(0.0f)) {
    const glm::vec3 base = parent >= 0 ? specs_[static_cast<size_t>(parent)].position : glm::vec3(0.0f);
    specs_.push_back(BoneSpec{std::move(name), parent, base + offsetFromParent, radius, tip});
    return static_cast<int32_t>(specs_.size() - 1);
  }
  std::vector<BoneSpec>& specs() { return specs_; }

 private:
  std::vector<BoneSpec> specs_;
};

// A T-pose humanoid, 1.75 m tall (kDemoHumanoidBones bones).
// Returns the head's index (hair hangs from it).
int32_t addHumanoid(SpecList& s) {
  const int32_t root = s.add("root", -1, {0, 0, 0}, 0.0f);
  const int32_t pelvis = s.add("pelvis", root, {0, 0.95f, 0}, 0.13f);
  const int32_t spine1 = s.add("spine_01", pelvis, {0, 0.10f, 0}, 0.13f);
  const int32_t spine2 = s.add("spine_02", spine1, {0, 0.15f, 0}, 0.14f);
  const int32_t spine3 = s.add("spine_03", spine2, {0, 0.15f, 0}, 0.15f);
  const int32_t neck = s.add("neck", spine3, {0, 0.15f, 0}, 0.05f);
  const int32_t head = s.add("head", neck, {0, 0.08f, 0}, 0.10f, {0, 0.22f, 0});
  for (const float side : {1.0f, -1.0f}) {
    const char* lr = side > 0 ? "l" : "r";
    const int32_t clavicle = s.add(fmt::format("clavicle_{}", lr), spine3, {side * 0.03f, 0.12f, 0}, 0.05f);
    const int32_t upper = s.add(fmt::format("upperarm_{}", lr), clavicle, {side * 0.16f, 0, 0}, 0.05f);
    const int32_t fore = s.add(fmt::format("forearm_{}", lr), upper, {side * 0.28f, 0, 0}, 0.04f);
    const int32_t hand = s.add(fmt::format("hand_{}", lr), fore, {side * 0.26f, 0, 0}, 0.035f);
    s.add(fmt::format("fingers_{}", lr), hand, {side * 0.08f, 0, 0}, 0.018f, {side * 0.08f, 0, 0});
    s.add(fmt::format("thumb_{}", lr), hand, {side * 0.03f, 0, 0.04f}, 0.012f, {side * 0.02f, 0, 0.05f});
  }
  for (const float side : {1.0f, -1.0f}) {
    const char* lr = side > 0 ? "l" : "r";
    const int32_t thigh = s.add(fmt::format("thigh_{}", lr), pelvis, {side * 0.10f, -0.05f, 0}, 0.08f);
    const int32_t calf = s.add(fmt::format("calf_{}", lr), thigh, {0, -0.42f, 0}, 0.06f);
    const int32_t foot = s.add(fmt::format("foot_{}", lr), calf, {0, -0.40f, 0}, 0.045f);
    s.add(fmt::format("toe_{}", lr), foot, {0, -0.06f, 0.12f}, 0.035f, {0, 0, 0.06f});
  }
  return head;
}

// Extra bones as hair chains of up to 8 links fanning out from the crown and hanging down.
void addHair(SpecList& s, int32_t head, uint32_t count) {
  constexpr uint32_t kLinks = 8;
  const uint32_t strands = (count + kLinks - 1) / kLinks;
  uint32_t made = 0;
  for (uint32_t strand = 0; strand < strands; ++strand) {
    const float angle = 2.0f * kPi * static_cast<float>(strand) / static_cast<float>(strands);
    const glm::vec3 out(std::cos(angle), 0.0f, std::sin(angle));
    int32_t parent = head;
    glm::vec3 offset = glm::vec3(0, 0.18f, 0) + 0.06f * out;
    for (uint32_t link = 0; link < kLinks && made < count; ++link, ++made) {
      const bool last = link + 1 == kLinks || made + 1 == count;
      const glm::vec3 step = 0.035f * out + glm::vec3(0, -0.02f * static_cast<float>(link), 0);
      parent = s.add(fmt::format("hair_{:02}_{}", strand, link), parent, offset, 0.006f, last ? step : glm::vec3(0.0f));
      offset = step;
    }
  }
}

// The rotation taking +Y to `dir`: bones point down their local +Y axis, as in Blender.
glm::quat aimY(glm::vec3 dir) {
  dir = glm::normalize(dir);
  const float d = dir.y;
  if (d > 1.0f - 1e-6f) return glm::quat(1, 0, 0, 0);
  if (d < -1.0f + 1e-6f) return glm::quat(0, 0, 0, 1);  // half turn about Z
  const glm::vec3 axis = glm::cross(glm::vec3(0, 1, 0), dir);
  return glm::normalize(glm::quat(1.0f + d, axis.x, axis.y, axis.z));
}

struct Segment {
  glm::vec3 start, end;
  float radius;
};

std::vector<Segment> segmentsOf(const std::vector<BoneSpec>& specs) {
  std::vector<Segment> segs(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) segs[i] = Segment{specs[i].position, specs[i].position + specs[i].tip, specs[i].radius};
  for (size_t i = specs.size(); i-- > 0;) {
    const int32_t p = specs[i].parent;
    // A bone without its own tip ends at its first child (the loop runs backwards).
    if (p >= 0 && specs[static_cast<size_t>(p)].tip == glm::vec3(0.0f)) segs[static_cast<size_t>(p)].end = specs[i].position;
  }
  return segs;
}

Skeleton buildSkeleton(const std::vector<BoneSpec>& specs, const std::vector<Segment>& segs) {
  Skeleton sk;
  std::vector<glm::quat> world(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    const glm::vec3 dir = segs[i].end - segs[i].start;
    world[i] = glm::length(dir) > 0.0f ? aimY(dir) : glm::quat(1, 0, 0, 0);
    Bone b;
    b.name = specs[i].name;
    b.parent = specs[i].parent;
    b.id = static_cast<uint32_t>(i);
    if (b.parent >= 0) {
      const glm::quat parentInv = glm::conjugate(world[static_cast<size_t>(b.parent)]);
      b.translation = parentInv * (specs[i].position - specs[static_cast<size_t>(b.parent)].position);
      b.rotation = glm::normalize(parentInv * world[i]);
    } else {
      b.translation = specs[i].position;
      b.rotation = world[i];
    }
    sk.bones.push_back(std::move(b));
  }
  const std::vector<glm::mat4> bind = sk.worldBindMatrices();
  for (size_t i = 0; i < bind.size(); ++i) sk.bones[i].inverseBind = glm::inverse(bind[i]);
  return sk;
}

float distanceToSegment(glm::vec3 p, const Segment& s) {
  const glm::vec3 d = s.end - s.start;
  const float len2 = glm::dot(d, d);
  const float t = len2 > 0.0f ? std::clamp(glm::dot(p - s.start, d) / len2, 0.0f, 1.0f) : 0.0f;
  return glm::length(p - (s.start + t * d));
}

// Weights for a vertex whose tube axis point is `axisPoint` on bone `b`'s segment: the bone itself,
// its parent, grandparent and children each get (1 - d/falloff)², d the distance from the axis point
// to their segment; the largest `maxInfluences` are kept and normalised. Mid-segment vertices
// end with one influence, vertices at a joint split between the bones meeting there.
void skinVertex(Mesh& mesh, uint32_t b, glm::vec3 axisPoint, const std::vector<BoneSpec>& specs, const std::vector<Segment>& segs,
                const std::vector<std::vector<uint32_t>>& children, uint32_t maxInfluences) {
  std::vector<uint32_t> candidates{b};
  const int32_t p = specs[b].parent;
  if (p > 0) {  // the root has no segment of its own
    candidates.push_back(static_cast<uint32_t>(p));
    const int32_t gp = specs[static_cast<size_t>(p)].parent;
    if (gp > 0) candidates.push_back(static_cast<uint32_t>(gp));
  }
  for (uint32_t c : children[b]) candidates.push_back(c);
  const float falloff = 0.3f * glm::length(segs[b].end - segs[b].start) + 1e-4f;
  std::vector<Influence> found;
  for (uint32_t c : candidates) {
    const float x = 1.0f - distanceToSegment(axisPoint, segs[c]) / falloff;
    if (x > 0.1f) found.push_back(Influence{c, x * x});
  }
  std::sort(found.begin(), found.end(), [](const Influence& a, const Influence& c) { return a.weight > c.weight; });
  found.resize(std::min<size_t>(found.size(), maxInfluences));
  float sum = 0.0f;
  for (const Influence& i : found) sum += i.weight;
  for (Influence& i : found) {
    i.weight /= sum;
    mesh.influences.push_back(i);
  }
  mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
}

// Open tubes (rings × (sides+1) vertices, the seam column duplicated for the UVs) around every
// bone segment except the root's, sharing the vertex budget by segment length.
Mesh buildBody(const std::vector<BoneSpec>& specs, const std::vector<Segment>& segs, const Skeleton& sk, const DemoOptions& o) {
  Mesh mesh;
  mesh.name = "body";
  std::vector<std::vector<uint32_t>> children(specs.size());
  for (size_t i = 1; i < specs.size(); ++i) children[static_cast<size_t>(specs[i].parent)].push_back(static_cast<uint32_t>(i));
  float totalLength = 0.0f;
  for (size_t i = 1; i < segs.size(); ++i) totalLength += glm::length(segs[i].end - segs[i].start);
  const float perSegment = static_cast<float>(o.vertices) / static_cast<float>(segs.size() - 1);
  const uint32_t sides = std::clamp(static_cast<uint32_t>(std::sqrt(perSegment)), 6u, 48u);
  const std::vector<glm::mat4> bind = sk.worldBindMatrices();
  const uint32_t maxInfluences = std::clamp(o.maxInfluences, 1u, 4u);
  mesh.influenceOffsets.push_back(0);

  for (uint32_t b = 1; b < segs.size(); ++b) {
    const Segment& s = segs[b];
    const float length = glm::length(s.end - s.start);
    const float share = static_cast<float>(o.vertices) * length / totalLength;
    const uint32_t rings = std::max(2u, static_cast<uint32_t>(std::lround(share / static_cast<float>(sides + 1))));
    const glm::vec3 across1 = glm::vec3(bind[b][0]);
    const glm::vec3 along = glm::vec3(bind[b][1]);
    const glm::vec3 across2 = glm::vec3(bind[b][2]);
    const uint32_t first = static_cast<uint32_t>(mesh.positions.size());
    for (uint32_t r = 0; r < rings; ++r) {
      const float t = static_cast<float>(r) / static_cast<float>(rings - 1);
      const glm::vec3 axisPoint = s.start + t * length * along;
      const float radius = s.radius * (0.85f + 0.15f * std::sin(kPi * t));
      for (uint32_t j = 0; j <= sides; ++j) {
        const float u = static_cast<float>(j) / static_cast<float>(sides);
        const glm::vec3 normal = std::cos(2.0f * kPi * u) * across1 + std::sin(2.0f * kPi * u) * across2;
        mesh.positions.push_back(axisPoint + radius * normal);
        mesh.normals.push_back(glm::normalize(normal));
        mesh.uvs.emplace_back(u, t);
        skinVertex(mesh, b, axisPoint, specs, segs, children, maxInfluences);
      }
    }
    // Counter-clockwise seen from outside: (r,j) (r+1,j) (r,j+1) turns +along then +around.
    for (uint32_t r = 0; r + 1 < rings; ++r) {
      for (uint32_t j = 0; j < sides; ++j) {
        const uint32_t a = first + r * (sides + 1) + j;
        const uint32_t below = a + sides + 1;
        mesh.indices.insert(mesh.indices.end(), {a, below, a + 1, a + 1, below, below + 1});
      }
    }
  }
  return mesh;
}

// A bone's walk motion: a swing of `amplitude * wave(phase)` radians about a world axis through
// its joint, `wave` being sin, or 1-cos for one-sided bends (knees, elbows).
struct Swing {
  std::string bone;
  glm::vec3 worldAxis;
  float amplitude;
  float phase;
  bool bend = false;
};

std::vector<Swing> walkSwings() {
  const glm::vec3 x(1, 0, 0), y(0, 1, 0), z(0, 0, 1);
  // Facing +Z, a positive turn about +X moves a downward leg backwards; left leg forward at t = 0.25 s.
  return {
      {"pelvis", z, 0.05f, 0.0f},       {"spine_01", y, 0.08f, 0.0f},     {"spine_03", y, -0.10f, 0.0f},
      {"neck", y, 0.05f, 0.0f},         {"head", x, 0.05f, kPi / 2},      {"thigh_l", x, -0.45f, 0.0f},
      {"thigh_r", x, 0.45f, 0.0f},      {"calf_l", x, 0.30f, kPi, true},  {"calf_r", x, 0.30f, 0.0f, true},
      {"foot_l", x, 0.15f, 0.0f},       {"foot_r", x, -0.15f, 0.0f},      {"upperarm_l", y, 0.30f, 0.0f},
      {"upperarm_r", y, 0.30f, 0.0f},   {"forearm_l", y, 0.15f, 0.0f, true}, {"forearm_r", y, -0.15f, kPi, true},
  };
}

Animation buildWalk(const Skeleton& sk, const DemoOptions& o) {
  std::vector<Swing> swings = walkSwings();
  for (size_t i = kDemoHumanoidBones; i < sk.bones.size(); ++i) {
    swings.push_back(Swing{sk.bones[i].name, glm::vec3(0, 0, 1), 0.12f, 0.4f * static_cast<float>(i)});
  }
  const size_t channels = swings.size() + 1;  // + the pelvis bob
  const double perChannel = static_cast<double>(o.keys) / static_cast<double>(channels);
  const uint32_t frames = o.keys == 0 ? 31u : std::max(2u, static_cast<uint32_t>(std::lround(perChannel)));
  std::vector<float> times(frames);
  for (uint32_t k = 0; k < frames; ++k) times[k] = kDemoWalkSeconds * static_cast<float>(k) / static_cast<float>(frames - 1);
  times.back() = kDemoWalkSeconds;

  const std::vector<glm::mat4> bind = sk.worldBindMatrices();
  Animation anim;
  anim.name = "walk";
  anim.duration = kDemoWalkSeconds;
  for (const Swing& s : swings) {
    const int32_t b = sk.find(s.bone);
    const Bone& bone = sk.bones[static_cast<size_t>(b)];
    const glm::quat worldBind = glm::quat_cast(glm::mat3(bind[static_cast<size_t>(b)]));
    const glm::vec3 localAxis = glm::normalize(glm::conjugate(worldBind) * s.worldAxis);
    BoneTrack track;
    track.target.name = bone.name;
    track.target.id = bone.id;
    track.bone = b;
    track.rotation.times = times;
    for (float t : times) {
      const float phase = 2.0f * kPi * t / kDemoWalkSeconds + s.phase;
      const float wave = s.bend ? 1.0f - std::cos(phase) : std::sin(phase);
      track.rotation.values.push_back(glm::normalize(bone.rotation * glm::angleAxis(s.amplitude * wave, localAxis)));
    }
    track.rotation.values.back() = track.rotation.values.front();  // an exact loop
    if (s.bone == "pelvis") {
      track.translation.times = times;
      for (float t : times) {
        const float bob = 0.025f * std::cos(4.0f * kPi * t / kDemoWalkSeconds);
        track.translation.values.push_back(bone.translation + glm::vec3(0, bob, 0));
      }
      track.translation.values.back() = track.translation.values.front();
    }
    anim.tracks.push_back(std::move(track));
  }
  anim.events.push_back(Event{0.25f * kDemoWalkSeconds, "footstep", R"({"foot":"left"})"});
  anim.events.push_back(Event{0.75f * kDemoWalkSeconds, "footstep", R"({"foot":"right"})"});
  return anim;
}

}  // namespace

Rig makeDemoCharacter(const DemoOptions& options) {
  SpecList specs;
  const int32_t head = addHumanoid(specs);
  if (options.bones > kDemoHumanoidBones) addHair(specs, head, options.bones - kDemoHumanoidBones);
  const std::vector<Segment> segs = segmentsOf(specs.specs());

  Rig rig;
  rig.name = "demo_character";
  rig.skeleton = buildSkeleton(specs.specs(), segs);
  rig.meshes.push_back(buildBody(specs.specs(), segs, rig.skeleton, options));
  rig.animations.push_back(buildWalk(rig.skeleton, options));
  rig.provenance.format = "demo";
  return rig;
}

}  // namespace rigport
