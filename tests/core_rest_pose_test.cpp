// restPoseBounds() (core/rest_pose.hpp): the box of a rig's meshes as its rest pose shows them. The
// fact pinned here: a skinned mesh's box is exactly, bit for bit, the box of every vertex posed by the
// rule (posedVertex: joint world × inverse bind, weights over their sum, glm's operations in glm's
// order, non-finite poses left out, glm::min and glm::max in vertex order), though the lanes pose only
// the vertices bound near a side of the bind box when the skin matrices are near the identity
// (SideCuts). The fixtures put many vertices within a skin's reach of each side, so a cut even a
// little too tight changes a side.
#include <gtest/gtest.h>

#include <glm/gtc/matrix_transform.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/rest_pose.hpp"
#include "core/rig.hpp"
#include "support/random_rig.hpp"

using namespace rigport;

namespace {

// The rule, vertex by vertex in glm.
std::optional<RestBounds> posedBoxByTheRule(const Rig& rig) {
  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  std::vector<glm::mat4> skin;
  for (size_t b = 0; b < world.size(); ++b) skin.push_back(world[b] * *rig.skeleton.bones[b].inverseBind);
  constexpr float kMax = std::numeric_limits<float>::max();
  RestBounds box{glm::vec3(kMax), glm::vec3(-kMax)};
  bool any = false;
  for (const Mesh& mesh : rig.meshes) {
    for (size_t v = 0; v < mesh.vertexCount(); ++v) {
      const glm::vec4 p(mesh.positions[v], 1.0f);
      glm::vec3 sum(0.0f);
      float weights = 0.0f;
      for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i) {
        const Influence& inf = mesh.influences[i];
        if (inf.bone >= skin.size()) continue;
        sum += inf.weight * glm::vec3(skin[inf.bone] * p);
        weights += inf.weight;
      }
      const glm::vec3 posed = weights > 0.0f ? sum / weights : mesh.positions[v];
      if (!std::isfinite(posed.x) || !std::isfinite(posed.y) || !std::isfinite(posed.z)) continue;
      box.lo = glm::min(box.lo, posed);
      box.hi = glm::max(box.hi, posed);
      any = true;
    }
  }
  if (!any) return std::nullopt;
  return box;
}

void expectSameBits(const std::optional<RestBounds>& got, const std::optional<RestBounds>& rule, const std::string& what) {
  ASSERT_EQ(got.has_value(), rule.has_value()) << what;
  if (!got) return;
  EXPECT_EQ(std::memcmp(&got->lo, &rule->lo, sizeof(glm::vec3)), 0) << what << ": lo (" << got->lo.x << ", " << got->lo.y << ", "
                                                                     << got->lo.z << ") against (" << rule->lo.x << ", "
                                                                     << rule->lo.y << ", " << rule->lo.z << ")";
  EXPECT_EQ(std::memcmp(&got->hi, &rule->hi, sizeof(glm::vec3)), 0) << what << ": hi (" << got->hi.x << ", " << got->hi.y << ", "
                                                                     << got->hi.z << ") against (" << rule->hi.x << ", "
                                                                     << rule->hi.y << ", " << rule->hi.z << ")";
}

// test::randomSkeleton's bones bound where they stand (each inverse bind the inverse of its world
// bind matrix, so joint world × inverse bind is the identity but for float rounding), then each
// turned by up to `turn` radians: the rest pose moves every point by about turn × its lever.
Skeleton turnedSkeleton(std::mt19937& random, int count, float turn) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  Skeleton skeleton = test::randomSkeleton(random, count);
  const std::vector<glm::mat4> world = skeleton.worldBindMatrices();
  for (size_t b = 0; b < world.size(); ++b) {
    Bone& bone = skeleton.bones[b];
    bone.inverseBind = glm::inverse(world[b]);
    const glm::vec3 axis = glm::normalize(glm::vec3(unit(random), unit(random), unit(random)) + glm::vec3(0.0f, 0.0f, 2.0f));
    bone.rotation = glm::normalize(bone.rotation * glm::angleAxis(turn * unit(random), axis));
  }
  return skeleton;
}

struct MeshShape {
  bool negativeWeights = false;  // some weights below 0: the lanes pose every vertex
  bool oddWeights = false;       // zeros of both signs, weightless vertices, bones past the skeleton
  bool nans = false;             // NaN coordinates, beside coordinates beyond the box
  bool infinities = false;       // infinite ones too
};

// Vertices in a box of side 2, a third of them on a side of it, each within 1e-4 of the side (inside,
// with some exactly on it, +0 and -0 where the side is at 0).
Mesh clusteredMesh(std::mt19937& random, size_t vertices, uint32_t bones, const MeshShape& shape) {
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  Mesh mesh;
  mesh.influenceOffsets.push_back(0);
  const glm::vec3 lo(-1.0f, 0.0f, -0.5f), hi(1.0f, 2.0f, 1.5f);
  for (size_t v = 0; v < vertices; ++v) {
    glm::vec3 p = lo + (hi - lo) * (glm::vec3(unit(random), unit(random), unit(random)) * 0.5f + 0.5f);
    if (random() % 3 == 0) {
      const int axis = static_cast<int>(random() % 3);
      const float depth = random() % 4 == 0 ? 0.0f : 1e-4f * (unit(random) * 0.5f + 0.5f);
      p[axis] = random() % 2 ? lo[axis] + depth : hi[axis] - depth;
      if (p[axis] == 0.0f && random() % 2) p[axis] = -0.0f;
    }
    if (shape.nans && random() % 50 == 0) {
      // Not finite, and beyond the box on another axis: such a vertex is in no box, so no side.
      const int axis = static_cast<int>(random() % 3), other = (axis + 1) % 3;
      p[axis] = shape.infinities && random() % 2 ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
      p[other] = random() % 2 ? lo[other] - 0.5f : hi[other] + 0.5f;
    }
    mesh.positions.push_back(p);
    const uint32_t count = shape.oddWeights && random() % 20 == 0 ? 0 : 1 + random() % 6;
    for (uint32_t i = 0; i < count; ++i) {
      Influence inf{static_cast<uint32_t>(random() % bones), 0.05f + 0.95f * (unit(random) * 0.5f + 0.5f)};
      if (shape.oddWeights && random() % 10 == 0) inf.weight = random() % 2 ? 0.0f : -0.0f;
      if (shape.oddWeights && random() % 15 == 0) inf.bone = bones + static_cast<uint32_t>(random() % 3);
      if (shape.negativeWeights && random() % 10 == 0) inf.weight = -0.25f;
      mesh.influences.push_back(inf);
    }
    mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
  }
  return mesh;
}

TEST(RestPoseBounds, TheBoxIsEveryVertexPosedByTheRuleBitForBit) {
  std::mt19937 random(20261129);
  // Turns from none (the skin the identity but for rounding) to 1e-3 rad (each point moved ten
  // times further than the clusters are deep) and 1 rad (no cut: every vertex posed).
  for (const float turn : {0.0f, 1e-6f, 1e-5f, 1e-4f, 1e-3f, 1.0f}) {
    for (int round = 0; round < 12; ++round) {
      MeshShape shape;
      shape.oddWeights = round % 2 == 1;
      shape.nans = round % 3 == 2;
      shape.infinities = round % 6 == 5;
      shape.negativeWeights = round % 4 == 3;
      Rig rig;
      rig.skeleton = turnedSkeleton(random, 6, turn);
      rig.meshes.push_back(clusteredMesh(random, 1500, 6, shape));
      rig.meshes.push_back(clusteredMesh(random, 7, 6, shape));
      const std::string what = "turn " + std::to_string(turn) + ", round " + std::to_string(round);
      expectSameBits(restPoseBounds(rig), posedBoxByTheRule(rig), what);
    }
  }
}

// A side reached by several vertices at once: with the skin exactly the identity each is posed to its
// own coordinate, so which zero a side at 0 keeps (+0 or -0) is the first vertex's in order.
TEST(RestPoseBounds, ASideReachedByManyVerticesKeepsTheFirstOnesZero) {
  for (const float first : {0.0f, -0.0f}) {
    Rig rig;
    Bone bone;
    bone.name = "root";
    bone.inverseBind = glm::mat4(1.0f);
    rig.skeleton.bones.push_back(bone);
    Mesh mesh;
    mesh.influenceOffsets.push_back(0);
    for (const float y : {first, 0.5f, -first, first, 1.0f}) {
      mesh.positions.emplace_back(0.25f, y, 0.25f);
      mesh.influences.push_back(Influence{0, 0.0f});  // weightless: posed where it is bound, sign and all
      mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
    }
    rig.meshes.push_back(mesh);
    const std::optional<RestBounds> box = restPoseBounds(rig);
    ASSERT_TRUE(box.has_value());
    EXPECT_EQ(std::signbit(box->lo.y), std::signbit(first));
    expectSameBits(box, posedBoxByTheRule(rig), "first zero " + std::to_string(std::signbit(first)));
  }
}

}  // namespace
