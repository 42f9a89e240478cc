#include "core/compare.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "core/axes.hpp"
#include "core/error.hpp"
#include "core/finite_scan.hpp"
#include "core/pose.hpp"
#include "core/track_space.hpp"
#include "core/vertex_lanes.hpp"

namespace rigport {
namespace {

// A place whose error is within this fraction of the worst so far does not take its place.
constexpr double kTie = 1e-4;

// distance() squared: its root is distance(), as glm::length takes it.
double squaredDistance(const glm::vec3& a, const glm::vec3& b) {
  const glm::dvec3 d = glm::dvec3(a) - glm::dvec3(b);
  return glm::dot(d, d);
}

// Keeps a measure's worst value and where it is (compare.hpp, Where).
class Worst {
 public:
  explicit Worst(Measure& m) : m_(m) {}
  template <class Describe>
  void see(double value, Describe&& describe) {
    ++m_.compared;
    if (std::isnan(value)) {
      if (!std::isnan(m_.worst)) m_.where = describe();
      m_.worst = value;
      return;
    }
    if (!(value > m_.worst)) return;  // also once worst is NaN
    if (value > whereValue_ * (1.0 + kTie)) {
      m_.where = describe();
      whereValue_ = value;
    }
    m_.worst = value;
  }

  // see(distance) of the distance sqrt(`squared`), which the vertex measures see once per vertex:
  // the root is taken only when it may change the measure (squared beyond every one seen so far
  // whose root was not beyond the worst; the root is monotonic, so the others change nothing).
  template <class Describe>
  void seeSquared(double squared, Describe&& describe) {
    if (squared <= notBeyond_) {
      ++m_.compared;
      return;
    }
    const double value = std::sqrt(squared);
    see(value, describe);
    if (value <= m_.worst) notBeyond_ = std::max(notBeyond_, squared);
  }

  // seeSquared(squaredDistance(a[i], b[i]), describe(i)) for i in 0..n-1, in order, the bound and the
  // count kept in registers while nothing changes the measure.
  template <class Describe>
  void seeDistances(const glm::vec3* a, const glm::vec3* b, size_t n, Describe&& describe) {
    size_t i = 0;
    while (i < n) {
      const double bound = notBeyond_;
      const size_t from = i;
      while (i < n && squaredDistance(a[i], b[i]) <= bound) ++i;
      m_.compared += i - from;
      if (i == n) break;
      seeSquared(squaredDistance(a[i], b[i]), [&] { return describe(i); });
      ++i;
    }
  }

 private:
  Measure& m_;
  double whereValue_ = 0.0;
  double notBeyond_ = 0.0;  // seeSquared(): the largest square seen whose root was within the worst
};

double distance(const glm::vec3& a, const glm::vec3& b) { return glm::length(glm::dvec3(a) - glm::dvec3(b)); }

double jointDistance(const glm::mat4& a, const glm::mat4& b, float lever) {
  const glm::vec3 oa(a[3]), ob(b[3]);
  double d = distance(oa, ob);
  for (int i = 0; i < 3; ++i) d = std::max(d, distance(oa + lever * glm::vec3(a[i]), ob + lever * glm::vec3(b[i])));
  return d;
}

std::string boneLabel(const Bone& bone, size_t index) { return bone.name.empty() ? fmt::format("#{}", index) : bone.name; }

bool sameHash(const Bone& x, const Bone& y) {
  if (x.nameHash && y.nameHash && *x.nameHash == *y.nameHash && x.nameHashKind == y.nameHashKind) return true;
  return x.nameHash && x.nameHashKind != HashKind::None && !y.name.empty() && hashName(x.nameHashKind, y.name) == *x.nameHash;
}

// Whether each bone is one of the skeleton's joints.
std::vector<bool> jointFlags(const Skeleton& skeleton) {
  std::vector<bool> out(skeleton.bones.size(), false);
  for (const uint32_t j : skeleton.jointList()) {
    if (j < out.size()) out[j] = true;
  }
  return out;
}

// first bone -> second bone or -1: by name, else id, else name hash; each second bone taken once.
std::vector<int32_t> matchBones(const Skeleton& first, const Skeleton& second) {
  const auto& a = first.bones;
  const auto& b = second.bones;
  std::vector<int32_t> match(a.size(), -1);
  std::vector<bool> taken(b.size(), false);
  auto pass = [&](auto&& same) {
    for (size_t i = 0; i < a.size(); ++i) {
      for (size_t j = 0; match[i] < 0 && j < b.size(); ++j) {
        if (taken[j] || !same(a[i], b[j])) continue;
        match[i] = static_cast<int32_t>(j);
        taken[j] = true;
      }
    }
  };
  // By name, in order. Where a name is on more bones on one side than on the other, a joint takes a
  // joint first: Blender names its armature object after the root bone it imported (a 'root' node
  // above the joint 'root'), and a writer that renames or drops that node leaves one 'root', the joint.
  std::unordered_map<std::string, std::vector<size_t>> inA, inB;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].name.empty()) inA[a[i].name].push_back(i);
  }
  for (size_t j = 0; j < b.size(); ++j) {
    if (!b[j].name.empty()) inB[b[j].name].push_back(j);
  }
  const std::vector<bool> jointA = jointFlags(first), jointB = jointFlags(second);
  for (const auto& [name, as] : inA) {
    const auto it = inB.find(name);
    if (it == inB.end()) continue;
    const std::vector<size_t>& bs = it->second;
    for (const bool sameKind : {true, false}) {
      if (sameKind && as.size() == bs.size()) continue;
      for (const size_t i : as) {
        for (const size_t j : bs) {
          if (match[i] >= 0 || taken[j] || (sameKind && jointA[i] != jointB[j])) continue;
          match[i] = static_cast<int32_t>(j);
          taken[j] = true;
        }
      }
    }
  }
  pass([](const Bone& x, const Bone& y) { return x.id && y.id && *x.id == *y.id; });
  pass([](const Bone& x, const Bone& y) { return sameHash(x, y) || sameHash(y, x); });
  return match;
}

// The bounding box of the finite vertices at rest, grown vertex by vertex in mesh order. In float:
// a float's double is exact and keeps the order, so the box is the same, in fewer steps.
struct RestBox {
  glm::vec3 lo{std::numeric_limits<float>::infinity()}, hi{-std::numeric_limits<float>::infinity()};
  void add(const glm::vec3& p) { add(&p, 1); }
  // add() of each, in order, the box kept in registers meanwhile.
  void add(const glm::vec3* p, size_t n) {
#if RIGPORT_SSE2_LANES
    lanes::growBox<true>(p, n, lo, hi);
#else
    glm::vec3 l = lo, h = hi;
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(p[i].x) || !std::isfinite(p[i].y) || !std::isfinite(p[i].z)) continue;
      l = glm::min(l, p[i]);
      h = glm::max(h, p[i]);
    }
    lo = l;
    hi = h;
#endif
  }
  // Its diagonal, or that of the joints' box when no vertex is finite (or there is none).
  double diagonal(const Pose& rest) {
    if (!(lo.x <= hi.x)) {
      for (const glm::mat4& w : rest.jointWorld()) add(glm::vec3(w[3]));
    }
    return lo.x <= hi.x ? glm::length(glm::dvec3(hi) - glm::dvec3(lo)) : 0.0;
  }
};

// Grid times closer than this to a key time are that key time (30 Hz keys computed as k/30.0f and
// a grid of k × (1/30) differ in the last bits).
constexpr float kSameTime = 1e-6f;

// The times both clips are sampled at (see compare.hpp), increasing.
std::vector<float> sampleTimes(const Animation& a, const Animation& b, const CompareOptions& o, std::vector<std::string>& notes) {
  std::vector<float> keys;
  for (const Animation* clip : {&a, &b}) {
    for (const BoneTrack& t : clip->tracks) {
      for (const std::vector<float>* times : {&t.translation.times, &t.rotation.times, &t.scale.times}) {
        keys.insert(keys.end(), times->begin(), times->end());
      }
    }
    for (const MorphWeightTrack& m : clip->morphWeights) keys.insert(keys.end(), m.times.begin(), m.times.end());
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const double end = std::max({static_cast<double>(a.duration), static_cast<double>(b.duration), keys.empty() ? 0.0 : keys.back()});
  double step = 1.0 / o.rate;
  if (end / step > static_cast<double>(o.maxGridSamples)) {
    step = end / static_cast<double>(o.maxGridSamples);
    notes.push_back(fmt::format("clip '{}': {:.0f} s sampled every {:.3g} s, not at {} Hz", a.name, end, step, o.rate));
  }
  auto nearKey = [&](float t) {
    const auto at = std::lower_bound(keys.begin(), keys.end(), t - kSameTime);
    return at != keys.end() && *at <= t + kSameTime;
  };
  std::vector<float> times = keys;
  for (size_t k = 0; static_cast<double>(k) * step <= end; ++k) {
    const float t = static_cast<float>(static_cast<double>(k) * step);
    if (!nearKey(t)) times.push_back(t);
  }
  if (!nearKey(static_cast<float>(end))) times.push_back(static_cast<float>(end));
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  const size_t n = times.size();
  for (size_t i = 0; i + 1 < n; ++i) {
    const float mid = times[i] + (times[i + 1] - times[i]) * 0.5f;
    if (mid > times[i] && mid < times[i + 1]) times.push_back(mid);
  }
  std::sort(times.begin(), times.end());
  return times;
}

// Pairs clips by name, or the only clip of each side; lists the others as unmatched.
std::vector<std::pair<size_t, size_t>> pairClips(const Rig& a, const Rig& b, Comparison& out) {
  std::vector<std::pair<size_t, size_t>> pairs;
  std::vector<bool> taken(b.animations.size(), false);
  if (a.animations.size() == 1 && b.animations.size() == 1) {
    pairs.emplace_back(0, 0);
    const bool byName = a.animations[0].name == b.animations[0].name;
    if (!byName) out.notes.push_back(fmt::format("clip '{}' (first) compared with '{}' (second): the only clip of each", a.animations[0].name, b.animations[0].name));
    out.clips.push_back(ClipPair{a.animations[0].name, b.animations[0].name, byName, 0});
    return pairs;
  }
  for (size_t i = 0; i < a.animations.size(); ++i) {
    size_t j = 0;
    while (j < b.animations.size() && (taken[j] || b.animations[j].name != a.animations[i].name)) ++j;
    if (j == b.animations.size()) {
      out.unmatched.push_back(Unmatched{Unmatched::Kind::Clip, true, a.animations[i].name, i, 1});
      continue;
    }
    taken[j] = true;
    pairs.emplace_back(i, j);
    out.clips.push_back(ClipPair{a.animations[i].name, b.animations[j].name, true, 0});
  }
  for (size_t j = 0; j < b.animations.size(); ++j) {
    if (!taken[j]) out.unmatched.push_back(Unmatched{Unmatched::Kind::Clip, false, b.animations[j].name, j, 1});
  }
  return pairs;
}

// Everything one comparison needs about the two rigs, in glTF axes.
class Comparer {
 public:
  Comparer(const Rig& a, const Rig& b, Comparison& out) : a_(a), b_(b), pa_(a), pb_(b), out_(out) {
    match_ = matchBones(a.skeleton, b.skeleton);
    listUnmatched();
    measuredBones();
    for (const char* name : {"rest joints", "bind vertices", "clip joints", "clip vertices"}) out_.measures.push_back(Measure{name, 0.0, 0, {}});
    for (Measure& m : out_.measures) worst_.emplace_back(m);  // the measures are not moved from here on
    restVertices();
    lever_ = static_cast<float>(kJointLeverOfSize * (out_.modelSize > 0.0 ? out_.modelSize : 1.0));
    restA_ = pa_.jointWorld();
    measureDeltas();
  }

  // The joints at rest (the vertices were measured with the model's size).
  void rest() { measureJoints(worst_[0], "", std::nullopt); }

  void clip(const Animation& a, const Animation& b, ClipPair& pair, const CompareOptions& o) {
    const std::vector<float> times = sampleTimes(a, b, o, out_.notes);
    pair.samples = times.size();
    const size_t vertices = std::max<size_t>(out_.vertices, 1);
    const bool everyTime = o.maxClipVertexPoses == 0 || times.size() * vertices <= o.maxClipVertexPoses;
    std::vector<double> apart(times.size()), moved(times.size()), shaped(times.size());
    for (size_t i = 0; i < times.size(); ++i) {
      pa_.setTime(&a, times[i]);
      pb_.setTime(&b, times[i]);
      apart[i] = measureJoints(worst_[2], a.name, times[i]);
      if (everyTime) {
        measureVertices(worst_[3], a.name, times[i]);
      } else {
        moved[i] = fromRest();
        shaped[i] = morphsApart();
      }
    }
    if (everyTime) return;
    const std::vector<size_t> chosen = vertexTimes({&apart, &moved, &shaped}, std::max<size_t>(o.maxClipVertexPoses / vertices, 2));
    for (const size_t i : chosen) {
      pa_.setTime(&a, times[i]);
      pb_.setTime(&b, times[i]);
      measureVertices(worst_[3], a.name, times[i]);
    }
    out_.notes.push_back(fmt::format("clip '{}': vertices posed at {} of {} times (those where the joints differ most, move most from rest, "
                                     "and the shape keys' weights differ most)",
                                     a.name, chosen.size(), times.size()));
  }

 private:
  void listUnmatched() {
    std::vector<bool> taken(b_.skeleton.bones.size(), false);
    for (size_t i = 0; i < match_.size(); ++i) {
      if (match_[i] >= 0) {
        taken[static_cast<size_t>(match_[i])] = true;
        ++out_.bones;
      } else {
        out_.unmatched.push_back(Unmatched{Unmatched::Kind::Bone, true, boneLabel(a_.skeleton.bones[i], i), i, 1});
      }
    }
    for (size_t j = 0; j < taken.size(); ++j) {
      if (!taken[j]) out_.unmatched.push_back(Unmatched{Unmatched::Kind::Bone, false, boneLabel(b_.skeleton.bones[j], j), j, 1});
    }
    const size_t meshes = std::min(a_.meshes.size(), b_.meshes.size());
    out_.meshes = meshes;
    for (size_t m = 0; m < meshes; ++m) {
      const size_t na = a_.meshes[m].vertexCount(), nb = b_.meshes[m].vertexCount();
      out_.vertices += std::min(na, nb);
      if (na != nb) out_.unmatched.push_back(Unmatched{Unmatched::Kind::Vertices, na > nb, (na > nb ? a_ : b_).meshes[m].name, m, na > nb ? na - nb : nb - na});
    }
    for (size_t m = meshes; m < a_.meshes.size(); ++m) out_.unmatched.push_back(Unmatched{Unmatched::Kind::Mesh, true, a_.meshes[m].name, m, 1});
    for (size_t m = meshes; m < b_.meshes.size(); ++m) out_.unmatched.push_back(Unmatched{Unmatched::Kind::Mesh, false, b_.meshes[m].name, m, 1});
  }

  // A bone that is a joint on neither side (an armature or clump node) moves no vertex, and a writer
  // whose tracks bind to joints folds its motion into its children (core/fit_keys.hpp): its own
  // matrix is not measured, what it moves is.
  void measuredBones() {
    const std::vector<bool> ja = jointFlags(a_.skeleton), jb = jointFlags(b_.skeleton);
    measured_.assign(match_.size(), false);
    std::string skipped;
    size_t count = 0;
    for (size_t i = 0; i < match_.size(); ++i) {
      if (match_[i] < 0) continue;
      measured_[i] = ja[i] || jb[static_cast<size_t>(match_[i])];
      if (!measured_[i] && count++ < 4) skipped += fmt::format("{}'{}'", count > 1 ? ", " : "", printable(a_.skeleton.bones[i].name));
    }
    if (count > 0) out_.notes.push_back(fmt::format("{} bone{} a joint on neither side ({}{}) not measured: {} no vertex", count, count == 1 ? "" : "s",
                                                    skipped, count > 4 ? ", ..." : "", count == 1 ? "it moves" : "they move"));
  }

  // Every vertex of both rigs posed at rest once, a block at a time: each side's box for the model's
  // size (every mesh and vertex of it), and the bind-vertex measure of the vertices both have.
  // Posing is most of the comparison's time; nothing is kept.
  void restVertices() {
    constexpr size_t kBlock = 256;
    glm::vec3 posed[2][kBlock];
    RestBox box[2];
    const Rig* rigs[2] = {&a_, &b_};
    const Pose* poses[2] = {&pa_, &pb_};
    for (size_t mesh = 0; mesh < std::max(a_.meshes.size(), b_.meshes.size()); ++mesh) {
      size_t count[2];
      for (size_t side = 0; side < 2; ++side) count[side] = mesh < rigs[side]->meshes.size() ? rigs[side]->meshes[mesh].vertexCount() : 0;
      const size_t both = mesh < out_.meshes ? std::min(count[0], count[1]) : 0;
      for (size_t first = 0; first < std::max(count[0], count[1]); first += kBlock) {
        size_t n[2];
        for (size_t side = 0; side < 2; ++side) n[side] = count[side] > first ? std::min(kBlock, count[side] - first) : 0;
        if (n[0] == n[1]) {
          pa_.verticesWith(pb_, mesh, first, n[0], posed[0], posed[1]);
        } else {  // none of a side that has no such mesh, or no more of its vertices
          for (size_t side = 0; side < 2; ++side) poses[side]->vertices(mesh, first, n[side], posed[side]);
        }
        for (size_t side = 0; side < 2; ++side) box[side].add(posed[side], n[side]);
        if (first < both) {
          worst_[1].seeDistances(posed[0], posed[1], std::min(kBlock, both - first),
                                 [&](size_t i) { return Where{"", std::nullopt, "", mesh, first + i}; });
        }
      }
    }
    out_.modelSize = std::max(box[0].diagonal(pa_), box[1].diagonal(pb_));
  }

  // The worst joint distance at this pose.
  double measureJoints(Worst& worst, const std::string& clip, std::optional<float> t) {
    const auto& wa = pa_.jointWorld();
    const auto& wb = pb_.jointWorld();
    double here = 0.0;
    for (size_t i = 0; i < match_.size(); ++i) {
      if (!measured_[i]) continue;
      const double d = jointDistance(wa[i], wb[static_cast<size_t>(match_[i])], lever_);
      here = std::max(here, d);
      worst.see(d, [&] { return Where{clip, t, boneLabel(a_.skeleton.bones[i], i), std::nullopt, std::nullopt}; });
    }
    return here;
  }

  // How far the first rig's measured joints are from their rest.
  double fromRest() const {
    double d = 0.0;
    for (size_t i = 0; i < match_.size(); ++i) {
      if (measured_[i]) d = std::max(d, jointDistance(pa_.jointWorld()[i], restA_[i], lever_));
    }
    return d;
  }

  // How far the two rigs' shape keys pose apart at most, from their weights alone: per mesh pair and
  // target, the weights' difference times the target's longest delta (a target one side lacks
  // weighs 0 there), summed. Zero when neither has morph targets.
  double morphsApart() const {
    double sum = 0.0;
    for (size_t mesh = 0; mesh < out_.meshes; ++mesh) {
      const std::vector<float>& wa = pa_.morphWeights(mesh);
      const std::vector<float>& wb = pb_.morphWeights(mesh);
      for (size_t t = 0; t < std::max(wa.size(), wb.size()); ++t) {
        const double w = std::fabs((t < wa.size() ? wa[t] : 0.0f) - (t < wb.size() ? wb[t] : 0.0f));
        sum += w * std::max(t < wa.size() ? longestDelta_[0][mesh][t] : 0.0, t < wb.size() ? longestDelta_[1][mesh][t] : 0.0);
      }
    }
    return sum;
  }

  // Per side, mesh and morph target: its longest position delta.
  void measureDeltas() {
    for (size_t side = 0; side < 2; ++side) {
      const Rig& rig = side == 0 ? a_ : b_;
      for (const Mesh& mesh : rig.meshes) {
        std::vector<double>& longest = longestDelta_[side].emplace_back();
        for (const MorphTarget& target : mesh.morphTargets) longest.push_back(target.longestDelta());
      }
    }
  }

  // `count` sample indices, increasing: in turn the next largest of each ranking.
  static std::vector<size_t> vertexTimes(std::initializer_list<const std::vector<double>*> rankings, size_t count) {
    const size_t n = (*rankings.begin())->size();
    std::vector<std::vector<size_t>> orders;
    for (const std::vector<double>* values : rankings) {
      std::vector<size_t>& order = orders.emplace_back(n);
      for (size_t i = 0; i < n; ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return (*values)[x] > (*values)[y]; });
    }
    std::vector<bool> taken(n, false);
    std::vector<size_t> out;
    for (size_t k = 0; k < n && out.size() < count; ++k) {
      for (const std::vector<size_t>& order : orders) {
        const size_t i = order[k];
        if (!taken[i] && out.size() < count) out.push_back(i);
        taken[i] = true;
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  void measureVertices(Worst& worst, const std::string& clip, std::optional<float> t) {
    constexpr size_t kBlock = 256;
    glm::vec3 va[kBlock], vb[kBlock];
    for (size_t mesh = 0; mesh < out_.meshes; ++mesh) {
      const size_t n = std::min(a_.meshes[mesh].vertexCount(), b_.meshes[mesh].vertexCount());
      for (size_t first = 0; first < n; first += kBlock) {
        const size_t k = std::min(kBlock, n - first);
        pa_.verticesWith(pb_, mesh, first, k, va, vb);
        worst.seeDistances(va, vb, k, [&](size_t i) { return Where{clip, t, "", mesh, first + i}; });
      }
    }
  }

  const Rig& a_;
  const Rig& b_;
  Pose pa_, pb_;
  Comparison& out_;
  std::vector<Worst> worst_;  // one per measure of out_
  std::vector<int32_t> match_;
  std::vector<bool> measured_;  // per bone of the first rig: matched, and a joint on one side
  std::vector<glm::mat4> restA_;  // the first rig's joint world matrices at rest
  std::vector<std::vector<double>> longestDelta_[2];  // measureDeltas()
  float lever_ = 0.0f;
};

// `rig` as the exporter poses it, in glTF axes with every track absolute: itself when it is so already
// (a glTF input; the read-back check's source), else a converted copy kept in `storage`.
const Rig& posable(const Rig& rig, std::optional<Rig>& storage) {
  const auto absolute = [&rig](const BoneTrack& t) {
    return t.space == TrackSpace::Absolute || t.bone < 0 || static_cast<size_t>(t.bone) >= rig.skeleton.bones.size();  // as makeAbsolute leaves them
  };
  const bool ready = rig.provenance.axes == AxisSystem{} && std::all_of(rig.animations.begin(), rig.animations.end(), [&](const Animation& a) {
                       return std::all_of(a.tracks.begin(), a.tracks.end(), absolute);
                     });
  if (ready) return rig;
  storage = rig;
  makePosable(*storage);
  return *storage;
}

// provablyWithin()'s bounds. The unit roundoff of float: each float operation's result is within
// this fraction of its exact value.
constexpr double kFloatRoundoff = 0x1p-24;
// A bound computed in double is this fraction too small at most (far above double's rounding).
constexpr double kDoubleSlack = 1e-9;

// The largest |x| of x, y and z of m · (p, 1) over every p with |p.x|, |p.y|, |p.z| <= reach:
// column by column, its largest x, y or z times the reach (the translation column times 1).
double reachOf(const glm::dmat4& m, double reach) {
  double sum = 0.0;
  for (int c = 0; c < 4; ++c) {
    const double column = std::max({std::fabs(m[c][0]), std::fabs(m[c][1]), std::fabs(m[c][2])});
    sum += c < 3 ? column * reach : column;
  }
  return sum;
}

// 1 where `value` is an infinity or a NaN (its exponent bits all set), else 0: in integer operations,
// which a loop over many values vectorises.
uint32_t exponentAllOnes(float value) { return (std::bit_cast<uint32_t>(value) & 0x7F800000u) == 0x7F800000u ? 1u : 0u; }

// The diagonal of a box whose sides are `extent` each grown (or, `grow` negative, shrunk, not below
// 0) by 2 × |grow|.
double grownDiagonal(const glm::dvec3& extent, double grow) {
  double sum = 0.0;
  for (int c = 0; c < 3; ++c) {
    const double side = std::max(0.0, extent[c] + 2.0 * grow);
    sum += side * side;
  }
  return std::sqrt(sum);
}

}  // namespace

bool provablyWithin(const Rig& first, const Rig& second, double ofSize) {
  std::optional<Rig> storageA, storageB;
  const Rig& a = posable(first, storageA);
  const Rig& b = posable(second, storageB);
  if (!a.animations.empty() || !b.animations.empty() || a.meshes.empty() || a.meshes.size() != b.meshes.size()) return false;
  // The meshes: the same bytes on both sides (so every vertex is posed from the same position and
  // weights), skinned, without shape keys; every position and weight finite (an infinite weight
  // would make its vertex NaN; a NaN one, which the posing skips, is turned away too). Their box and
  // their largest coordinate.
  RestBox box;
  for (size_t m = 0; m < a.meshes.size(); ++m) {
    const Mesh& x = a.meshes[m];
    const Mesh& y = b.meshes[m];
    const auto same = [](const auto& p, const auto& q) { return p.size() == q.size() && std::memcmp(p.data(), q.data(), p.size() * sizeof *p.data()) == 0; };
    if (!x.skinned() || !x.morphTargets.empty() || !y.morphTargets.empty() || !same(x.positions, y.positions) ||
        !same(x.influenceOffsets, y.influenceOffsets) || !same(x.influences, y.influences)) {
      return false;
    }
    uint32_t weightNotFinite = 0;
    for (const Influence& inf : x.influences) weightNotFinite |= exponentAllOnes(inf.weight);
    if (weightNotFinite != 0 || anyNonFinite(x.positions)) return false;
    box.add(x.positions.data(), x.positions.size());  // every vertex, all finite
  }
  const glm::vec3 lo = box.lo, hi = box.hi;
  if (!(lo.x <= hi.x)) return false;  // no vertex: the model's size is its joints'
  const double reach = std::max({std::fabs(lo.x), std::fabs(lo.y), std::fabs(lo.z), std::fabs(hi.x), std::fabs(hi.y), std::fabs(hi.z)});
  // The skins, index by index (the influences name the same indices on both sides). Per side, the
  // largest a posed coordinate can be (reach[side]) and the farthest a vertex can be posed from its
  // position (moved[side]), and how far apart the two sides can pose one vertex (apart): a vertex
  // is a weighted mean of its skins times its position, or its side's root skin times it.
  const Pose pa(a), pb(b);
  const std::vector<glm::mat4>& sa = pa.skin();
  const std::vector<glm::mat4>& sb = pb.skin();
  if (sa.size() != sb.size() || pa.rootJoint() != pb.rootJoint()) return false;
  double largest[2] = {reach, reach}, moved[2] = {0.0, 0.0}, apart = 0.0;
  for (size_t j = 0; j < sa.size(); ++j) {
    if (!allFinite(sa[j]) || !allFinite(sb[j])) return false;  // std::max below passes a NaN over
    const glm::dmat4 ma(sa[j]), mb(sb[j]);
    largest[0] = std::max(largest[0], reachOf(ma, reach));
    largest[1] = std::max(largest[1], reachOf(mb, reach));
    moved[0] = std::max(moved[0], reachOf(ma - glm::dmat4(1.0), reach));
    moved[1] = std::max(moved[1], reachOf(mb - glm::dmat4(1.0), reach));
    apart = std::max(apart, reachOf(mb - ma, reach));
  }
  if (!(std::max(largest[0], largest[1]) < 1e30)) return false;  // near float's overflow
  // Posing rounds each coordinate by at most 3 float roundings of the matrix times the vertex
  // ((c0·x + c1·y) + (c2·z + c3)), a few double ones, and one to float: 8 taken.
  const double rounding[2] = {8.0 * kFloatRoundoff * largest[0], 8.0 * kFloatRoundoff * largest[1]};
  // Bind vertices: x, y and z each within apart + both roundings.
  const double vertices = std::sqrt(3.0) * (apart + rounding[0] + rounding[1]) * (1.0 + kDoubleSlack);
  // The model's size: the larger diagonal of the two sides' boxes of posed vertices, each within its
  // moved + rounding of the positions' box.
  const glm::dvec3 extent = glm::dvec3(hi) - glm::dvec3(lo);
  double sizeLo = 0.0, sizeHi = 0.0;
  for (size_t side = 0; side < 2; ++side) {
    const double off = moved[side] + rounding[side];
    sizeLo = std::max(sizeLo, grownDiagonal(extent, -off));
    sizeHi = std::max(sizeHi, grownDiagonal(extent, off));
  }
  sizeLo *= 1.0 - kDoubleSlack;
  sizeHi *= 1.0 + kDoubleSlack;
  if (!(sizeLo > 0.0)) return false;
  const double tolerance = ofSize * sizeLo;
  if (!(vertices <= tolerance)) return false;
  // Rest joints, as Comparer measures them (bones matched and measured alike), at the largest lever
  // the model's size allows: a joint's distance is at most its origins' distance plus the lever
  // times its axes' (the triangle inequality), plus the float rounding of origin + lever × axis.
  const std::vector<int32_t> match = matchBones(a.skeleton, b.skeleton);
  const std::vector<bool> ja = jointFlags(a.skeleton), jb = jointFlags(b.skeleton);
  const double lever = kJointLeverOfSize * sizeHi * (1.0 + 2.0 * kFloatRoundoff);
  for (size_t i = 0; i < match.size(); ++i) {
    if (match[i] < 0 || !(ja[i] || jb[static_cast<size_t>(match[i])])) continue;
    if (!allFinite(pa.jointWorld()[i]) || !allFinite(pb.jointWorld()[static_cast<size_t>(match[i])])) return false;
    const glm::dmat4 wa(pa.jointWorld()[i]), wb(pb.jointWorld()[static_cast<size_t>(match[i])]);
    const auto largestOf = [](const glm::dvec4& v) { return std::max({std::fabs(v.x), std::fabs(v.y), std::fabs(v.z)}); };
    const double origins = largestOf(wa[3] - wb[3]);
    double joint = origins;
    for (int c = 0; c < 3; ++c) {
      const double rounded = 2.0 * kFloatRoundoff * (largestOf(wa[3]) + largestOf(wb[3]) + 2.0 * lever * (largestOf(wa[c]) + largestOf(wb[c])));
      joint = std::max(joint, origins + lever * largestOf(wa[c] - wb[c]) + rounded);
    }
    if (!(std::sqrt(3.0) * joint * (1.0 + kDoubleSlack) <= tolerance)) return false;
  }
  return true;
}

const char* unmatchedKindName(Unmatched::Kind kind) {
  switch (kind) {
    case Unmatched::Kind::Bone: return "bone";
    case Unmatched::Kind::Mesh: return "mesh";
    case Unmatched::Kind::Vertices: return "vertices";
    case Unmatched::Kind::Clip: return "clip";
  }
  return "?";
}

std::string describeWhere(const Where& w) {
  std::string out;
  if (!w.clip.empty() || w.time) out = fmt::format("clip '{}' at {:.4f} s", printable(w.clip), w.time.value_or(0.0f));
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (!w.bone.empty()) add(fmt::format("bone '{}'", printable(w.bone)));
  if (w.mesh) add(fmt::format("mesh {} vertex {}", *w.mesh, w.vertex.value_or(0)));
  return out.empty() ? "-" : out;
}

double Comparison::tolerance(double ofSize) const { return ofSize * (modelSize > 0.0 ? modelSize : 1.0); }

void makePosable(Rig& rig, bool normals) {
  if (normals) {
    toGltfAxes(rig);
  } else if (const std::optional<VertexMap> map = convertAxesLeavingVertices(rig, AxisSystem{})) {
    for (Mesh& mesh : rig.meshes) mapPoints(*map, mesh.positions.data(), mesh.positions.data(), mesh.positions.size());
  }
  for (Animation& a : rig.animations) makeAbsolute(a, rig.skeleton);
}

Comparison comparePoses(const Rig& first, const Rig& second, const CompareOptions& options) {
  std::optional<Rig> storageA, storageB;
  const Rig& a = posable(first, storageA);
  const Rig& b = posable(second, storageB);
  Comparison out;
  Comparer comparer(a, b, out);
  comparer.rest();
  const std::vector<std::pair<size_t, size_t>> pairs = pairClips(a, b, out);
  for (size_t p = 0; p < pairs.size(); ++p) comparer.clip(a.animations[pairs[p].first], b.animations[pairs[p].second], out.clips[p], options);
  return out;
}

}  // namespace rigport
