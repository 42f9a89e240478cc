// Morph targets (shape keys) through rigport (issue 27 §2 "Morph targets"): a mesh's targets, their
// default weights and names, and a clip's weights keys survive glTF → glTF; posing applies
// base + Σ wᵢ·Δᵢ, so `rigport compare` measures a dropped shape key; a writer that cannot hold them
// says so with a bound; a split mesh and an axis change carry the deltas; bindAnimations() binds a
// weights track by mesh name and target count. Every fixture is built here from the model.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <glm/gtc/matrix_transform.hpp>
#include <string>
#include <vector>

#include "core/axes.hpp"
#include "core/bind.hpp"
#include "core/compare.hpp"
#include "core/fit.hpp"
#include "core/repair.hpp"
#include "core/validate.hpp"
#include "export/gltf.hpp"
#include "formats/registry.hpp"
#include "support/blender.hpp"
#include "support/gltf_edit.hpp"
#include "support/gltf_validator.hpp"
#include "support/quad_rig.hpp"
#include "support/test_support.hpp"

using namespace rigport;

namespace {

// The skinned quad (tests/support/quad_rig) with two shape keys: "raise" lifts the top edge 0.5 m
// along +Z (the quad faces +Z), "widen" pushes the right edge 0.25 m along +X and turns its normals;
// "raise" rests at weight 0.25. Clip "talk" keys both LINEAR (raise peaks at 1 at 0.5 s), clip
// "blink" keys them CUBICSPLINE, with tangents, and turns the root bone, so that bone keys and
// weights keys share a clip.
Rig shapedQuad() {
  Rig rig = test::quadRig(Material{"white", glm::vec4(1.0f), {}, {}, {}, {}, {}}, true);
  Mesh& mesh = rig.meshes[0];
  MorphTarget raise{"raise", {{0, 0, 0.5f}, {0, 0, 0.5f}, {0, 0, 0}, {0, 0, 0}}, {}};
  MorphTarget widen{"widen", {{0, 0, 0}, {0.25f, 0, 0}, {0, 0, 0}, {0.25f, 0, 0}}, {{0, 0, 0}, {0.5f, 0, -0.5f}, {0, 0, 0}, {0.5f, 0, -0.5f}}};
  mesh.morphTargets = {raise, widen};
  mesh.morphWeights = {0.25f, 0.0f};

  Animation talk;
  talk.name = "talk";
  talk.duration = 1.0f;
  MorphWeightTrack linear{"quad", 0, 2, {0.0f, 0.5f, 1.0f}, {0.0f, 0.0f, 1.0f, 0.5f, 0.0f, 0.0f}, Interpolation::Linear, {}, {}};
  talk.morphWeights.push_back(linear);
  rig.animations.push_back(talk);

  Animation blink;
  blink.name = "blink";
  blink.duration = 1.0f;
  BoneTrack turn;
  turn.target.name = "root";
  turn.bone = 0;
  turn.rotation.times = {0.0f, 1.0f};
  turn.rotation.values = {glm::quat(1, 0, 0, 0), glm::angleAxis(0.5f, glm::vec3(0, 1, 0))};
  blink.tracks.push_back(turn);
  MorphWeightTrack cubic{"quad", 0, 2, {0.0f, 1.0f}, {0.0f, 0.2f, 1.0f, 0.0f}, Interpolation::CubicSpline, {0, 0, 0.5f, -1.0f}, {2.0f, 0.5f, 0, 0}};
  blink.morphWeights.push_back(cubic);
  rig.animations.push_back(blink);
  return rig;
}

// `rig` exported as a .glb into the test's scratch folder, checked by the glTF-Validator, and read back.
Rig throughGlb(const Rig& rig, const std::string& name) {
  auto glb = exportGlb(rig);
  EXPECT_TRUE(glb.ok()) << (glb ? "" : glb.error().describe());
  if (!glb) return {};
  const std::string path = test::scratchDir(name) + "/" + name + ".glb";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(glb->data()), static_cast<std::streamsize>(glb->size()));
  const test::ValidatorRun run = test::validateGltfFile(path);
  EXPECT_TRUE(run.ok) << run.output;
  auto asset = loadAsset(path);
  EXPECT_TRUE(asset.ok() && asset->rigs.size() == 1) << (asset ? "" : asset.error().describe());
  if (!asset || asset->rigs.size() != 1) return {};
  return asset->rigs[0];
}

void expectSameShapes(const Mesh& a, const Mesh& b) {
  ASSERT_EQ(a.morphTargets.size(), b.morphTargets.size());
  EXPECT_EQ(a.morphWeights, b.morphWeights);
  for (size_t t = 0; t < a.morphTargets.size(); ++t) {
    EXPECT_EQ(a.morphTargets[t].name, b.morphTargets[t].name);
    EXPECT_EQ(a.morphTargets[t].positionDeltas, b.morphTargets[t].positionDeltas) << a.morphTargets[t].name;
    EXPECT_EQ(a.morphTargets[t].normalDeltas, b.morphTargets[t].normalDeltas) << a.morphTargets[t].name;
  }
}

void expectSameWeightKeys(const Rig& a, const Rig& b) {
  ASSERT_EQ(a.animations.size(), b.animations.size());
  for (size_t i = 0; i < a.animations.size(); ++i) {
    const Animation& x = a.animations[i];
    const Animation& y = b.animations[i];
    EXPECT_EQ(x.name, y.name);
    ASSERT_EQ(x.morphWeights.size(), y.morphWeights.size()) << x.name;
    for (size_t w = 0; w < x.morphWeights.size(); ++w) {
      const MorphWeightTrack& p = x.morphWeights[w];
      const MorphWeightTrack& q = y.morphWeights[w];
      EXPECT_EQ(p.mesh, q.mesh);
      EXPECT_EQ(p.meshIndex, q.meshIndex);
      EXPECT_EQ(p.targetCount, q.targetCount);
      EXPECT_EQ(p.times, q.times) << x.name;
      EXPECT_EQ(p.weights, q.weights) << x.name;
      EXPECT_EQ(p.interpolation, q.interpolation) << x.name;
      EXPECT_EQ(p.inTangents.size(), q.inTangents.size()) << x.name;
      // The first in- and last out-tangent are unused, and glTF stores them as zero (Spec Appendix C).
      for (size_t k = p.targetCount; k < p.inTangents.size(); ++k) EXPECT_EQ(p.inTangents[k], q.inTangents[k]) << x.name << " in " << k;
      for (size_t k = 0; k + p.targetCount < p.outTangents.size(); ++k) EXPECT_EQ(p.outTangents[k], q.outTangents[k]) << x.name << " out " << k;
    }
  }
}

// The clip vertex measure of comparing `a` with `b`.
const Measure& clipVertices(const Comparison& c) { return c.measures[3]; }

}  // namespace

// glTF 2.0 §3.7.2.2 and §3.11: a mesh's targets, mesh.weights, extras.targetNames and a weights
// channel (keys × targets outputs, ×3 for CUBICSPLINE) are written and read back as they were, and
// a second pass gives the same again (glTF → glTF keeps shape keys and their animation).
TEST(MorphTargets, ShapeKeysAndTheirWeightsRoundTripGltfToGltf) {
  const Rig rig = shapedQuad();
  ASSERT_TRUE(validate(rig).ok());
  const Rig once = throughGlb(rig, "morph_round_trip_once");
  ASSERT_EQ(once.meshes.size(), 1u);
  expectSameShapes(rig.meshes[0], once.meshes[0]);
  expectSameWeightKeys(rig, once);
  const Rig twice = throughGlb(once, "morph_round_trip_twice");
  ASSERT_EQ(twice.meshes.size(), 1u);
  expectSameShapes(rig.meshes[0], twice.meshes[0]);
  expectSameWeightKeys(rig, twice);
}

// A bind shape B (×100, an FBX conversion's) folded into the inverse bind matrices, the vertices
// and the position deltas in B⁻¹'s space, normals and their deltas as they were: the glTF reader
// moves B into the vertices (gltf_bind_shape.cpp) and its linear part into the position deltas,
// and the normal deltas keep their length, as the normals made unit again do.
TEST(MorphTargets, ABindShapeMovesIntoTheDeltasAndNormalDeltasKeepTheirLength) {
  const Rig rig = shapedQuad();
  tinygltf::Model model = test::exported(rig);
  test::foldBindShape(model, glm::scale(glm::mat4(1.0f), glm::vec3(100.0f)));
  const std::string path = test::save(model, test::scratchDir("morph_bind_shape") + "/folded.glb");
  auto asset = loadAsset(path);
  ASSERT_TRUE(asset.ok() && asset->rigs.size() == 1) << (asset ? "" : asset.error().describe());
  const Mesh& mesh = asset->rigs[0].meshes.at(0);
  ASSERT_EQ(mesh.morphTargets.size(), 2u);
  for (size_t t = 0; t < 2; ++t) {
    for (size_t v = 0; v < 4; ++v) {
      const glm::vec3 d = mesh.morphTargets[t].positionDeltas[v] - rig.meshes[0].morphTargets[t].positionDeltas[v];
      EXPECT_LT(glm::length(d), 1e-6f) << "target " << t << " vertex " << v;
    }
  }
  ASSERT_EQ(mesh.morphTargets[1].normalDeltas.size(), 4u);
  for (size_t v = 0; v < 4; ++v) {
    EXPECT_LT(glm::length(mesh.morphTargets[1].normalDeltas[v] - rig.meshes[0].morphTargets[1].normalDeltas[v]), 1e-6f) << "vertex " << v;
  }
}

// Blender 3.4's importer (gltf_ecosystem.md §2.3) makes shape keys of an exported .glb's morph
// targets, named by extras.targetNames, and keys their values from the weights channels (an fcurve
// per target, on key_blocks["name"].value); the values it shows are the first clip's at its frame.
TEST(MorphTargets, BlenderImportsTheShapeKeysByNameWithTheirWeightsAndKeys) {
  const std::string dir = test::scratchDir("morph_blender");
  auto glb = exportGlb(shapedQuad());
  ASSERT_TRUE(glb.ok());
  const std::string path = dir + "/shaped.glb";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(glb->data()), static_cast<std::streamsize>(glb->size()));
  const test::BlenderRun run = test::inspectWithBlender(path, dir + "/report.json");
  ASSERT_TRUE(run.ok) << run.output;
  ASSERT_EQ(run.report["meshes"].size(), 1u) << run.report.dump();
  const nlohmann::json& keys = run.report["meshes"][0]["shapeKeys"];
  ASSERT_EQ(keys.size(), 3u) << keys.dump();  // Basis, raise, widen
  EXPECT_EQ(keys[1]["name"], "raise");
  EXPECT_EQ(keys[2]["name"], "widen");
  bool keyed = false;
  for (const auto& action : run.report["actions"]) {
    for (const auto& curve : action["fcurves"]) keyed = keyed || curve["data_path"] == "key_blocks[\"raise\"].value";
  }
  EXPECT_TRUE(keyed) << run.report["actions"].dump();
}

// Spec §3.7.2.2: the shaped vertex is base + Σ wᵢ·Δᵢ, before skinning. The same rig without its
// targets poses apart most at the top right vertex when "raise" peaks at 0.5 s (weight 1: 0.5 m up,
// with widen at 0.5: 0.125 m right, √(0.5² + 0.125²) m), and 0.125 m apart at rest (raise's
// default weight 0.25): a compare that ignored morphs would report 0.
TEST(MorphTargets, CompareMeasuresADroppedShapeKeyWhereItsWeightPeaks) {
  const Rig shaped = shapedQuad();
  Rig flat = shaped;
  flat.meshes[0].morphTargets.clear();
  flat.meshes[0].morphWeights.clear();
  for (Animation& a : flat.animations) a.morphWeights.clear();
  flat.animations.resize(1);
  Rig talkOnly = shaped;
  talkOnly.animations.resize(1);
  const Comparison c = comparePoses(talkOnly, flat);
  EXPECT_NEAR(c.measures[1].worst, 0.125, 1e-6);  // bind vertices, at the default weights
  const double peak = std::sqrt(0.5 * 0.5 + 0.125 * 0.125);
  EXPECT_NEAR(clipVertices(c).worst, peak, 1e-6);
  EXPECT_EQ(clipVertices(c).where.vertex, 1u);
  ASSERT_TRUE(clipVertices(c).where.time.has_value());
  EXPECT_FLOAT_EQ(*clipVertices(c).where.time, 0.5f);

  // With the vertex posings rationed (convert --to's check), the times where the weights differ
  // most are among those posed, though no joint moves at all.
  CompareOptions rationed;
  rationed.maxClipVertexPoses = 8;
  const Comparison r = comparePoses(talkOnly, flat, rationed);
  EXPECT_NEAR(clipVertices(r).worst, peak, 1e-6);
}

// A format without morph targets (every game writer today): one warning at write time naming the
// mesh, the target count and the bound Σ |Δ|max · largest weight, over clip "blink" (raise keyed to
// 1, widen to 0.2, its default 0): 0.5 m × 1 + 0.25 m × 0.2 = 0.55 m; and the read-back check
// (pipeline/verify) measures the loss as pose-loss.
TEST(MorphTargets, ConvertToADffWarnsWithTheBoundOfTheDroppedShapeKeys) {
  Rig rig = shapedQuad();
  rig.animations.erase(rig.animations.begin());
  const std::string dir = test::scratchDir("morph_to_dff");
  auto glb = exportGlb(rig);
  ASSERT_TRUE(glb.ok());
  const std::string path = dir + "/shaped.glb";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(glb->data()), static_cast<std::streamsize>(glb->size()));
  const test::CliRun run = test::runCli("convert " + test::quote(path) + " --to renderware-dff -o " + test::quote(dir + "/shaped.dff") +
                                        " --anim-out " + test::quote(dir + "/shaped.anm"));
  EXPECT_EQ(run.code, 0) << run.text;
  EXPECT_NE(run.text.find("mesh 'quad': 2 morph targets (shape keys) and 1 weight track dropped"), std::string::npos) << run.text;
  EXPECT_NE(run.text.find("up to 0.55 m"), std::string::npos) << run.text;
  EXPECT_NE(run.text.find("read back and posed is beyond renderware-dff's stated precision"), std::string::npos) << run.text;
  EXPECT_NE(run.text.find("clip vertices 0.5 m (clip 'blink' at 1.0000 s"), std::string::npos) << run.text;
}

// core/fit splitMesh: a mesh beyond a writer's index width is cut into pieces; each piece keeps
// every target, with the deltas (and normal deltas) of its own vertices, and each piece gets its
// own copy of the weights track.
TEST(MorphTargets, ASplitMeshKeepsEachPiecesDeltas) {
  Rig rig = shapedQuad();
  const Mesh& mesh = rig.meshes[0];
  const std::vector<Mesh> pieces = splitMesh(mesh, 3);
  ASSERT_EQ(pieces.size(), 2u);
  for (const Mesh& piece : pieces) {
    ASSERT_EQ(piece.morphTargets.size(), 2u);
    EXPECT_EQ(piece.morphWeights, mesh.morphWeights);
    for (size_t v = 0; v < piece.positions.size(); ++v) {
      const size_t source = static_cast<size_t>(std::find(mesh.positions.begin(), mesh.positions.end(), piece.positions[v]) - mesh.positions.begin());
      ASSERT_LT(source, mesh.positions.size());
      for (size_t t = 0; t < 2; ++t) {
        EXPECT_EQ(piece.morphTargets[t].name, mesh.morphTargets[t].name);
        EXPECT_EQ(piece.morphTargets[t].positionDeltas[v], mesh.morphTargets[t].positionDeltas[source]);
        if (!mesh.morphTargets[t].normalDeltas.empty()) EXPECT_EQ(piece.morphTargets[t].normalDeltas[v], mesh.morphTargets[t].normalDeltas[source]);
      }
    }
  }
  WriteLimits limits;
  limits.maxVertices = 3;
  limits.keepsMorphTargets = true;
  ASSERT_TRUE(fitToLimits(rig, limits, "test").ok());
  ASSERT_EQ(rig.meshes.size(), 2u);
  ASSERT_EQ(rig.animations[0].morphWeights.size(), 2u);
  EXPECT_EQ(rig.animations[0].morphWeights[0].mesh, "quad_0");
  EXPECT_EQ(rig.animations[0].morphWeights[0].meshIndex, 0);
  EXPECT_EQ(rig.animations[0].morphWeights[1].meshIndex, 1);
  EXPECT_TRUE(validate(rig).ok());
}

// core/axes: deltas are vectors. A Z-up rig in centimetres (RenderWare-style up) converted to glTF:
// a delta along +Z turns to +Y and is scaled to metres, and is not translated (a zero delta stays zero).
TEST(MorphTargets, AxisConversionTurnsAndScalesDeltas) {
  Rig rig = shapedQuad();
  rig.provenance.axes = AxisSystem{AxisSystem::Up::Z, AxisSystem::Axis::PosY, true, 0.01f};
  rig.meshes[0].morphTargets[0].positionDeltas = {{0, 0, 50}, {0, 0, 50}, {0, 0, 0}, {0, 0, 0}};
  rig.meshes[0].morphTargets[1].normalDeltas[1] = {0, 0, 1};
  toGltfAxes(rig);
  const MorphTarget& raise = rig.meshes[0].morphTargets[0];
  EXPECT_NEAR(raise.positionDeltas[0].x, 0.0f, 1e-7f);
  EXPECT_NEAR(raise.positionDeltas[0].y, 0.5f, 1e-6f);
  EXPECT_NEAR(raise.positionDeltas[0].z, 0.0f, 1e-7f);
  EXPECT_EQ(raise.positionDeltas[2], glm::vec3(0.0f));
  EXPECT_EQ(rig.meshes[0].morphTargets[1].normalDeltas[1], glm::vec3(0, 1, 0));  // a direction: turned, not scaled
}

// bindAnimations(): a weights track binds to the target rig's mesh of its name with as many
// targets; one naming another mesh, or a mesh with another target count, is dropped and named in
// one unbound-morph-weights warning.
TEST(MorphTargets, WeightsTracksBindByMeshNameAndTargetCount) {
  Rig target = shapedQuad();
  std::vector<Animation> clips = target.animations;
  target.animations.clear();
  clips[0].morphWeights[0].meshIndex = -1;
  MorphWeightTrack elsewhere = clips[0].morphWeights[0];
  elsewhere.mesh = "head";
  clips[0].morphWeights.push_back(elsewhere);
  MorphWeightTrack threeTargets = clips[1].morphWeights[0];
  threeTargets.targetCount = 3;
  clips[1].morphWeights = {threeTargets};
  auto report = bindAnimations(target, clips);
  ASSERT_TRUE(report.ok());
  ASSERT_EQ(target.animations[0].morphWeights.size(), 1u);
  EXPECT_EQ(target.animations[0].morphWeights[0].meshIndex, 0);
  EXPECT_TRUE(target.animations[1].morphWeights.empty());
  size_t warnings = 0;
  for (const Warning& w : target.provenance.warnings) {
    if (w.code != "unbound-morph-weights") continue;
    ++warnings;
    EXPECT_NE(w.message.find("'head' (2 targets) in 'talk'"), std::string::npos) << w.message;
    EXPECT_NE(w.message.find("'quad' (3 targets) in 'blink'"), std::string::npos) << w.message;
  }
  EXPECT_EQ(warnings, 1u);
}

// Repairs: a delta that is not finite would send its vertex to infinity at any weight; it becomes
// zero with a repaired-morph-delta warning, and --strict refuses it naming the target and vertex.
TEST(MorphTargets, DeltasThatAreNotFiniteAreRepairedOrRefused) {
  Rig rig = shapedQuad();
  rig.meshes[0].morphTargets[1].positionDeltas[3].y = NAN;
  EXPECT_FALSE(validate(rig).ok());
  Rig strict = rig;
  auto refused = repairRig(strict, RepairOptions{true});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().describe().find("meshes[0]/morphTargets[1]/positionDeltas[3]"), std::string::npos) << refused.error().describe();
  ASSERT_TRUE(repairRig(rig, {}).ok());
  EXPECT_EQ(rig.meshes[0].morphTargets[1].positionDeltas[3], glm::vec3(0.0f));
  bool warned = false;
  for (const Warning& w : rig.provenance.warnings) warned = warned || w.code == "repaired-morph-delta";
  EXPECT_TRUE(warned);
  EXPECT_TRUE(validate(rig).ok());
}
