// Spore (PC, "w32") blend-shape meshes (issue 26, docs/spore_meshes.md "BlendShapeBuffer, checked
// against both decoders"). No real Spore file is committed: every fixture is a rig written by rigport's
// own writer in Spore's layout, some patched by hand. Facts reproduced, measured on a real model and
// read in SporeModder-FX and the SporeModder Blender add-on: a model may keep its vertices in a
// BlendShapeBuffer (0x200AF) named by the Mesh object in place of its VertexBuffer, the base shape's
// positions first and each shape's position deltas after it (16 bytes a vertex), the normal stream
// holding each shape's own normals; a BlendShape object (0xFF0002) names the shapes by id; a
// KeyframeAnim of BlendFactor channels (8-byte keys: factor, time), one per shape in shape-id order
// and with the BlendShape's id as its skeleton id, keys the weights (one real model: 4 shapes driven
// by BlendFactor clips).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <glm/gtc/quaternion.hpp>

#include "core/assemble.hpp"
#include "core/compare.hpp"
#include "core/hash.hpp"
#include "formats/gltf/gltf.hpp"
#include "formats/rw4/arena.hpp"
#include "formats/rw4/arena_layout.hpp"
#include "formats/rw4/rw4.hpp"
#include "formats/registry.hpp"
#include "formats/rw4/spore_mesh_layout.hpp"
#include "platform/files.hpp"
#include "support/gltf_edit.hpp"
#include "support/gltf_pose.hpp"
#include "support/gltf_validator.hpp"
#include "support/spore_arena.hpp"
#include "support/spore_axes.hpp"
#include "support/test_support.hpp"
#include "../fuzz/downstream.hpp"

using namespace rigport;
using namespace rigport::rw4;

namespace {

using test::bone;
using test::hasWarning;
using test::kSporeAxes;
using test::parse;
using test::sporeBytes;
using test::sporeToGltf;
using test::warnings;

// A Z-up creature's face: a 3 × 2 grid of vertices on two bones, with normals and UVs, and two shapes,
// "smile" (moves the lower row up and turns its normals) and "blink" (moves the top row down); one
// clip turns the head and keys both weights at 0, 0.5 and 1 s.
Rig face() {
  Rig rig;
  rig.name = "face";
  rig.provenance.axes = kSporeAxes;
  rig.skeleton.inheritScale = false;
  rig.skeleton.bones.push_back(bone("root", -1, {0, 0, 0}));
  rig.skeleton.bones.push_back(bone("head", 0, {0, 0, 1.0f}));
  Mesh mesh;
  mesh.name = "face";
  mesh.influenceOffsets.push_back(0);
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) {
      mesh.positions.emplace_back(0.1f * static_cast<float>(c - 1), -0.2f, 1.0f + 0.1f * static_cast<float>(r));
      mesh.normals.push_back(glm::normalize(glm::vec3(0.1f * static_cast<float>(c - 1), -1.0f, 0.05f)));
      mesh.uvs.emplace_back(0.5f * static_cast<float>(c), static_cast<float>(r));
      mesh.influences.push_back(Influence{1, r == 0 ? 0.6f : 1.0f});
      if (r == 0) mesh.influences.push_back(Influence{0, 0.4f});
      mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
    }
  }
  mesh.indices = {0, 3, 1, 1, 3, 4, 1, 4, 2, 2, 4, 5};
  MorphTarget smile, blink;
  smile.name = "smile";
  blink.name = "blink";
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    const bool lower = v < 3;
    smile.positionDeltas.emplace_back(0.0f, -0.01f, lower ? 0.03f + 0.01f * static_cast<float>(v) : 0.0f);
    smile.normalDeltas.push_back(lower ? glm::vec3(0.0f, 0.1f, 0.2f) : glm::vec3(0.0f));
    blink.positionDeltas.emplace_back(0.0f, 0.0f, lower ? 0.0f : -0.05f);
    blink.normalDeltas.emplace_back(0.0f);
  }
  mesh.morphTargets = {smile, blink};
  rig.meshes.push_back(mesh);
  Animation clip;
  clip.name = "0x0AC4AEED";
  clip.duration = 1.0f;
  BoneTrack head;
  head.bone = 1;
  head.target.name = "head";
  head.rotation.times = {0.0f, 1.0f};
  head.rotation.values = {glm::quat(1, 0, 0, 0), glm::angleAxis(0.4f, glm::vec3(0, 0, 1))};
  clip.tracks.push_back(head);
  MorphWeightTrack weights;
  weights.mesh = "face";
  weights.meshIndex = 0;
  weights.targetCount = 2;
  weights.times = {0.0f, 0.5f, 1.0f};
  weights.weights = {0.0f, 0.25f, 1.0f, 0.75f, 0.5f, 0.0f};  // (smile, blink) at each key
  clip.morphWeights.push_back(weights);
  rig.animations.push_back(clip);
  return rig;
}

Asset readAsset(const std::vector<uint8_t>& bytes) { return test::readArenaBytes(bytes, "face.rw4"); }
Rig readRig(const std::vector<uint8_t>& bytes) { return test::readArenaRig(bytes, "face.rw4"); }

uint32_t u32(const std::vector<uint8_t>& bytes, size_t at) {
  uint32_t v;
  std::memcpy(&v, bytes.data() + at, 4);
  return v;
}
float f32(const std::vector<uint8_t>& bytes, size_t at) {
  float v;
  std::memcpy(&v, bytes.data() + at, 4);
  return v;
}
void put32(std::vector<uint8_t>& bytes, size_t at, uint32_t v) { std::memcpy(bytes.data() + at, &v, 4); }

}  // namespace

// The layout the add-on writes (rw4_exporter.py export_as_blend_shape, process_blend_shape_action),
// checked on the bytes.
TEST(Rw4SporeBlendShape, WriterLaysOutBlendShapeBufferBlendShapeAndBlendFactorClip) {
  const Rig rig = face();
  const Mesh& mesh = rig.meshes[0];
  const size_t n = mesh.vertexCount();
  const std::vector<uint8_t> bytes = sporeBytes(rig);
  const test::ParsedArena p = parse(bytes);
  ASSERT_EQ(p.rowsOf(spore::kMesh).size(), 1u);
  ASSERT_EQ(p.rowsOf(spore::kBlendShapeBuffer).size(), 1u);
  ASSERT_EQ(p.rowsOf(spore::kBlendShape).size(), 1u);
  EXPECT_TRUE(p.rowsOf(spore::kVertexBuffer).empty());
  const uint32_t bsb = p.rowsOf(spore::kBlendShapeBuffer)[0];
  // The Mesh names the BlendShapeBuffer in place of its VertexBuffer.
  EXPECT_EQ(u32(bytes, p.at(p.rowsOf(spore::kMesh)[0], spore::mesh::kHeaderSize)), bsb);
  namespace b = spore::blendshapebuffer;
  EXPECT_EQ(u32(bytes, p.at(bsb, 0)), 1u);
  EXPECT_EQ(u32(bytes, p.at(bsb, b::kShapeCount)), 2u);  // the shapes beside the base, as the add-on counts them
  EXPECT_EQ(u32(bytes, p.at(bsb, b::kVertexCount)), n);
  EXPECT_EQ(u32(bytes, p.at(bsb, b::kIndicesPerVertex)), 4u);
  const uint32_t position = u32(bytes, p.at(bsb, b::kOffsets + 4 * b::kPositionStream));
  const uint32_t normal = u32(bytes, p.at(bsb, b::kOffsets + 4 * b::kNormalStream));
  EXPECT_EQ(position, b::kHeaderSize);  // the data right after the 64-byte header, offsets from the object's start
  // Shape i's deltas at position + 16 · (i + 1) · vertex count; its normals as its own (base + delta).
  for (size_t s = 0; s < 2; ++s) {
    for (size_t v = 0; v < n; ++v) {
      for (int c = 0; c < 3; ++c) {
        const size_t at = 16 * ((s + 1) * n + v) + 4 * static_cast<size_t>(c);
        EXPECT_EQ(f32(bytes, p.at(bsb, position + at)), mesh.morphTargets[s].positionDeltas[v][c]) << s << " " << v;
        EXPECT_EQ(f32(bytes, p.at(bsb, normal + at)), mesh.normals[v][c] + mesh.morphTargets[s].normalDeltas[v][c]) << s << " " << v;
      }
    }
  }
  // Blend indices as u16 3 × bone, largest weight first; weights as f32.
  const uint32_t indices = u32(bytes, p.at(bsb, b::kOffsets + 4 * b::kBlendIndicesStream));
  EXPECT_EQ(bytes[p.at(bsb, indices)], 3 * 1);
  EXPECT_EQ(bytes[p.at(bsb, indices + 2)], 3 * 0);
  // BlendShape: the shape ids (FNV-1 of the lower-cased names, the add-on's get_hash) after the times.
  const uint32_t shape = p.rowsOf(spore::kBlendShape)[0];
  EXPECT_EQ(u32(bytes, p.at(shape, spore::blendshape::kShapeCount)), 2u);
  EXPECT_EQ(u32(bytes, p.at(shape, spore::blendshape::kShapeCountAgain)), 2u);
  EXPECT_EQ(u32(bytes, p.at(shape, spore::blendshape::kHeaderSize + 8)), fnv1_32Lower("smile"));
  EXPECT_EQ(u32(bytes, p.at(shape, spore::blendshape::kHeaderSize + 12)), fnv1_32Lower("blink"));
  const uint32_t id = u32(bytes, p.at(shape, spore::blendshape::kId));
  EXPECT_EQ(id, fnv1_32Lower("face"));
  // Two KeyframeAnims: the bones' and the weights' (skeleton id = the BlendShape's id, BlendFactor
  // channels named by the shape ids in order, 8-byte keys), both under the clip's id.
  const std::vector<uint32_t> anims = p.rowsOf(kKeyframeAnim);
  ASSERT_EQ(anims.size(), 2u);
  const uint32_t weights = anims[1];
  namespace k = keyframeanim;
  EXPECT_EQ(u32(bytes, p.at(weights, k::kSkeletonId)), id);
  EXPECT_EQ(u32(bytes, p.at(weights, k::kChannelCount)), 2u);
  const size_t info = u32(bytes, p.at(weights, k::kChannelInfo)) - p.arena.dictionary[weights].fileOffset;  // PC: absolute
  EXPECT_EQ(u32(bytes, p.at(weights, info + 4)), 8u);
  EXPECT_EQ(u32(bytes, p.at(weights, info + 8)), k::kBlendFactor);
  const size_t blinkKeys = u32(bytes, p.at(weights, info + k::kChannelInfoSize));
  EXPECT_EQ(f32(bytes, p.at(weights, blinkKeys + 8)), 0.75f);  // blink's factor at its second key
  EXPECT_EQ(f32(bytes, p.at(weights, blinkKeys + 12)), 0.5f);  // and that key's time
  const uint32_t map = p.rowsOf(spore::kAnimations)[0];
  EXPECT_EQ(u32(bytes, p.at(map, 4)), 2u);
  EXPECT_EQ(u32(bytes, p.at(map, 8)), 0x0AC4AEEDu);
  EXPECT_EQ(u32(bytes, p.at(map, 16)), 0x0AC4AEEDu);
}

// Read back exactly: the base, every delta as stored, the skin, and the weights keyed; the clip of
// weights joins the clip of bones under their one id.
TEST(Rw4SporeBlendShape, ReadsTheMeshItsShapesAndTheirWeightsBackExactly) {
  const Rig source = face();
  const Rig rig = readRig(sporeBytes(source));
  EXPECT_FALSE(hasWarning(rig.provenance, "rw4-spore-mesh")) << warnings(rig.provenance);
  EXPECT_FALSE(hasWarning(rig.provenance, "rw4-blend-shapes")) << warnings(rig.provenance);
  ASSERT_EQ(rig.meshes.size(), 1u);
  const Mesh& in = source.meshes[0];
  const Mesh& out = rig.meshes[0];
  ASSERT_EQ(out.vertexCount(), in.vertexCount());
  EXPECT_EQ(out.indices, in.indices);
  EXPECT_EQ(out.positions, in.positions);
  EXPECT_EQ(out.normals, in.normals);  // f32 in a BlendShapeBuffer, not packed bytes
  EXPECT_EQ(out.uvs, in.uvs);
  ASSERT_EQ(out.morphTargets.size(), 2u);
  for (size_t t = 0; t < 2; ++t) {
    const MorphTarget& a = in.morphTargets[t];
    const MorphTarget& b = out.morphTargets[t];
    EXPECT_EQ(b.name, fmt::format("0x{:08X}", fnv1_32Lower(a.name)));  // the shape id, as the file names it
    EXPECT_EQ(b.positionDeltas, a.positionDeltas);
    ASSERT_EQ(b.normalDeltas.size(), a.normalDeltas.size());
    for (size_t v = 0; v < a.normalDeltas.size(); ++v) EXPECT_LT(glm::length(b.normalDeltas[v] - a.normalDeltas[v]), 1e-6f) << t << " " << v;
  }
  ASSERT_TRUE(out.skinned());
  for (size_t v = 0; v < in.vertexCount(); ++v) {
    ASSERT_EQ(out.influenceOffsets[v + 1] - out.influenceOffsets[v], in.influenceOffsets[v + 1] - in.influenceOffsets[v]) << v;
    for (uint32_t k = 0; k < in.influenceOffsets[v + 1] - in.influenceOffsets[v]; ++k) {
      const Influence& a = in.influences[in.influenceOffsets[v] + k];
      const Influence& b = out.influences[out.influenceOffsets[v] + k];
      EXPECT_EQ(rig.skeleton.bones[b.bone].nameHash.value_or(0), fnv1_32Lower(source.skeleton.bones[a.bone].name)) << v;
      EXPECT_FLOAT_EQ(b.weight, a.weight) << v;  // f32 weights
    }
  }
  ASSERT_EQ(rig.animations.size(), 1u);
  const Animation& clip = rig.animations[0];
  EXPECT_EQ(clip.name, "0x0AC4AEED");
  EXPECT_EQ(clip.tracks.size(), 1u);
  EXPECT_TRUE(clip.scalars.empty());
  ASSERT_EQ(clip.morphWeights.size(), 1u);
  const MorphWeightTrack& w = clip.morphWeights[0];
  EXPECT_EQ(w.meshIndex, 0);
  EXPECT_EQ(w.mesh, out.name);
  EXPECT_EQ(w.targetCount, 2u);
  EXPECT_EQ(w.times, source.animations[0].morphWeights[0].times);
  EXPECT_EQ(w.weights, source.animations[0].morphWeights[0].weights);
}

// What a glTF client sees: validator-clean, two morph targets whose POSITION deltas are the arena's
// turned from Spore's Z up to glTF's Y up, named by their shape ids, and a `weights` channel keying
// them; and arena → glTF → arena → glTF keeps them.
TEST(Rw4SporeBlendShape, ExportedGlbHasTheShapesAndTheirWeightsChannel) {
  const Rig source = face();
  const Rig rig = readRig(sporeBytes(source));
  const std::string dir = test::scratchDir("rw4_spore_blend_shape_glb");
  const std::string path = test::writeGlb(rig, dir + "/face.glb");
  const test::ValidatorRun v = test::validateGltfFile(path);
  EXPECT_TRUE(v.ok) << v.output;
  const tinygltf::Model model = test::loadGlbModel(path);
  ASSERT_EQ(model.meshes.size(), 1u);
  const auto& primitive = model.meshes[0].primitives[0];
  ASSERT_EQ(primitive.targets.size(), 2u);
  for (size_t t = 0; t < 2; ++t) {
    const auto deltas = test::accessorFloats(model, primitive.targets[t].at("POSITION"));
    ASSERT_EQ(deltas.size(), source.meshes[0].vertexCount());
    for (size_t i = 0; i < deltas.size(); ++i) {
      const glm::vec3 want = sporeToGltf(source.meshes[0].morphTargets[t].positionDeltas[i]);
      EXPECT_LT(glm::length(glm::vec3(deltas[i][0], deltas[i][1], deltas[i][2]) - want), 1e-6f) << t << " " << i;
    }
  }
  ASSERT_EQ(model.animations.size(), 1u);
  const auto& anim = model.animations[0];
  const auto channel = std::find_if(anim.channels.begin(), anim.channels.end(), [](const auto& c) { return c.target_path == "weights"; });
  ASSERT_NE(channel, anim.channels.end());
  const auto& sampler = anim.samplers[static_cast<size_t>(channel->sampler)];
  const auto times = test::accessorFloats(model, sampler.input);
  const auto out = test::accessorFloats(model, sampler.output);
  const MorphWeightTrack& w = source.animations[0].morphWeights[0];
  ASSERT_EQ(times.size(), w.times.size());
  ASSERT_EQ(out.size(), w.weights.size());
  for (size_t i = 0; i < out.size(); ++i) EXPECT_FLOAT_EQ(out[i][0], w.weights[i]) << i;

  // Back through rigport's glTF reader and the Spore writer: the same shapes and weights.
  const auto glb = Source::fromBytes(test::readBytes(path), "face.glb");
  ReadContext ctx;
  auto fromGlb = gltf_in::readGltf(*glb, ctx);
  ASSERT_TRUE(fromGlb.ok()) << fromGlb.error().describe();
  ASSERT_EQ(fromGlb->rigs.size(), 1u);
  const Rig again = readRig(sporeBytes(fromGlb->rigs[0]));
  ASSERT_EQ(again.meshes.size(), 1u);
  ASSERT_EQ(again.meshes[0].morphTargets.size(), 2u);
  for (size_t t = 0; t < 2; ++t) {
    EXPECT_EQ(again.meshes[0].morphTargets[t].name, rig.meshes[0].morphTargets[t].name);
    for (size_t i = 0; i < source.meshes[0].vertexCount(); ++i) {
      EXPECT_LT(glm::length(again.meshes[0].morphTargets[t].positionDeltas[i] - rig.meshes[0].morphTargets[t].positionDeltas[i]), 1e-6f);
    }
  }
  ASSERT_EQ(again.animations.size(), 1u);
  ASSERT_EQ(again.animations[0].morphWeights.size(), 1u);
  EXPECT_EQ(again.animations[0].morphWeights[0].weights, w.weights);
}

// The modder's way back: `convert` of the arena to .glb and of that .glb `--to rw4-arena` gives a PC
// arena whose mesh is a BlendShapeBuffer with the same shapes (before, the arena's limits dropped
// every morph target on the way, as for a PS3 .psg, which has no place for them).
// What a glTF client shows (skin × (base + Σ weight × delta), the weights sampled at every key and
// between): the .glb exported from the arena, read back and posed over the clip, puts every vertex
// where the face written into the arena has it; and the shape keys are what moves them there (the
// same .glb without its weights is off by the smile, up to 5 cm).
TEST(Rw4SporeBlendShape, ExportedGlbPosesTheVerticesAsTheFaceWritten) {
  const Rig source = face();
  const std::string dir = test::scratchDir("rw4_spore_blend_shape_pose");
  const std::string path = test::writeGlb(readRig(sporeBytes(source)), dir + "/face.glb");
  auto asset = loadAsset(path);
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  auto assembled = assemble(std::move(*asset), {}, nullptr, {});
  ASSERT_TRUE(assembled.ok() && assembled->size() == 1u);
  const Rig& glb = assembled->front().rig;
  const auto clipVertices = [](const Comparison& c) {
    const auto m = std::find_if(c.measures.begin(), c.measures.end(), [](const Measure& x) { return x.name == "clip vertices"; });
    return m == c.measures.end() ? std::optional<Measure>() : std::optional<Measure>(*m);
  };
  const Comparison same = comparePoses(source, glb);
  const std::optional<Measure> posed = clipVertices(same);
  ASSERT_TRUE(posed.has_value());
  EXPECT_GT(posed->compared, 0u);
  EXPECT_LE(posed->worst, same.tolerance(1e-4)) << describeWhere(posed->where);

  Rig still = glb;
  for (Animation& a : still.animations) a.morphWeights.clear();
  const std::optional<Measure> unshaped = clipVertices(comparePoses(source, still));
  ASSERT_TRUE(unshaped.has_value());
  EXPECT_GT(unshaped->worst, 0.02) << describeWhere(unshaped->where);
}

TEST(Rw4SporeBlendShape, ConvertBackToRw4ArenaKeepsTheShapes) {
  const std::string dir = test::scratchDir("rw4_spore_blend_shape_cli");
  const std::string model = dir + "/face.rw4", glb = dir + "/face.glb", back = dir + "/back.rw4";
  ASSERT_TRUE(platform::writeFileAtomic(model, sporeBytes(face()), platform::Overwrite::Replace).ok());
  test::CliRun run = test::runCli(fmt::format("convert {} -o {}", test::quote(model), test::quote(glb)));
  ASSERT_EQ(run.code, 0) << run.text;
  run = test::runCli(fmt::format("convert {} --to rw4-arena -o {}", test::quote(glb), test::quote(back)));
  ASSERT_EQ(run.code, 0) << run.text;
  EXPECT_EQ(run.text.find("morph-targets-dropped"), std::string::npos) << run.text;
  const std::vector<uint8_t> bytes = test::readBytes(back);
  const test::ParsedArena p = parse(bytes);
  ASSERT_EQ(p.rowsOf(spore::kBlendShapeBuffer).size(), 1u);
  const Rig again = readRig(bytes);
  ASSERT_EQ(again.meshes.size(), 1u);
  ASSERT_EQ(again.meshes[0].morphTargets.size(), 2u);
  for (size_t t = 0; t < 2; ++t) {
    EXPECT_EQ(again.meshes[0].morphTargets[t].name, fmt::format("0x{:08X}", fnv1_32Lower(face().meshes[0].morphTargets[t].name)));
    for (size_t v = 0; v < again.meshes[0].vertexCount(); ++v) {
      EXPECT_LT(glm::length(again.meshes[0].morphTargets[t].positionDeltas[v] - face().meshes[0].morphTargets[t].positionDeltas[v]), 1e-6f);
    }
  }
}

// --base writes no BlendShapeBuffer value: the rig as read goes onto its arena byte for byte, and an
// edited shape is refused naming the object, never dropped.
TEST(Rw4SporeBlendShape, BaseKeepsTheBufferAndRefusesAnEditOfIt) {
  const std::vector<uint8_t> bytes = sporeBytes(face());
  const auto source = Source::fromBytes(bytes, "face.rw4");
  const Asset asset = readAsset(bytes);
  ASSERT_EQ(asset.rigs.size(), 1u);
  ReadContext same;
  auto onto = writeArenaOnto(asset.rigs[0], *source, same);
  ASSERT_TRUE(onto.ok()) << onto.error().describe();
  EXPECT_EQ(*onto, bytes);
  Rig edited = asset.rigs[0];
  edited.meshes[0].morphTargets[1].positionDeltas[4].z += 0.1f;
  ReadContext again;
  auto refused = writeArenaOnto(edited, *source, again);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().describe().find(fmt::format("BlendShapeBuffer[{}]", parse(bytes).rowsOf(spore::kBlendShapeBuffer)[0])),
            std::string::npos)
      << refused.error().describe();
}

// A finding of rw4_arena_fuzz (blend-shapes-skeleton-of-no-bones.rw4): a Skeleton of no bones gave
// the BlendShapeBuffer's vertices an influence on bone 0 of 0, a rig no repair makes valid; a
// skeleton of no bones skins nothing now, the mesh read unskinned with a warning.
TEST(Rw4SporeBlendShape, SkeletonOfNoBonesReadsTheMeshUnskinned) {
  const std::vector<uint8_t> bytes =
      test::readBytes((std::filesystem::path(RIGPORT_SOURCE_DIR) / "tests/data/fuzz/rw4_arena/blend-shapes-skeleton-of-no-bones.rw4").string());
  const Asset asset = readAsset(bytes);
  ASSERT_EQ(asset.rigs.size(), 1u);
  const Rig& rig = asset.rigs[0];
  EXPECT_TRUE(rig.skeleton.bones.empty());
  ASSERT_EQ(rig.meshes.size(), 1u);
  EXPECT_FALSE(rig.meshes[0].skinned());
  EXPECT_EQ(rig.meshes[0].morphTargets.size(), 2u);
  EXPECT_TRUE(hasWarning(rig.provenance, "rw4-spore-mesh", "the skeleton has no bones")) << warnings(rig.provenance);
  fuzz::exerciseDownstream(rig);
}

// The fuzz target's invariant on every kept seed and finding (tests/data/fuzz/rw4_arena/): a rig put
// back onto the arena it was read from changes no byte. Two findings (onto-infinity-kept-*) held an
// infinite vertex value: --base took it, kept as it was, for an edit (inf − inf is NaN) and refused
// it, in a RenderOptiMeshData and in a Spore VertexBuffer; an infinity the rig keeps is no edit now.
TEST(Rw4SporeBlendShape, EveryKeptSeedGoesBackOntoItselfUnchanged) {
  const std::filesystem::path dir = std::filesystem::path(RIGPORT_SOURCE_DIR) / "tests/data/fuzz/rw4_arena";
  size_t rigs = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    SCOPED_TRACE(e.path().string());
    const std::vector<uint8_t> bytes = test::readBytes(e.path().string());
    const auto source = Source::fromBytes(bytes, e.path().filename().string());
    ReadContext ctx;
    auto asset = readArena(*source, ctx);
    if (!asset.ok()) continue;
    for (const Rig& rig : asset->rigs) {
      ReadContext same;
      auto onto = writeArenaOnto(rig, *source, same);
      ASSERT_TRUE(onto.ok()) << onto.error().describe();
      EXPECT_TRUE(*onto == bytes);
      ++rigs;
    }
  }
  EXPECT_GE(rigs, 5u);
}

// A forged count costs the mesh, never the rig, and the warning names the object, row and field;
// nothing is allocated for counts the object cannot hold.
TEST(Rw4SporeBlendShape, ForgedShapeOrVertexCountIsRefusedNamingTheField) {
  const std::vector<uint8_t> bytes = sporeBytes(face());
  const test::ParsedArena p = parse(bytes);
  const uint32_t bsb = p.rowsOf(spore::kBlendShapeBuffer)[0];
  namespace b = spore::blendshapebuffer;
  struct Forgery {
    size_t at;
    uint32_t value;
    std::string field;
  };
  const Forgery forgeries[] = {
      {b::kShapeCount, 3, "shapeCount"},               // one shape more than the streams hold
      {b::kShapeCount, 0xFFFFFFFFu, "shapeCount"},     // a count that would overflow a size
      {b::kVertexCount, 7, "vertexCount 7"},           // one vertex more: the base fits, the last shape does not
      {b::kVertexCount, 0x10000000u, "vertexCount"},   // more vertices than the object's bytes
      {b::kVertexCount, 0, "vertexCount"},
      {b::kOffsets + 4 * b::kNormalStream, 0x7FFFFFF0u, "offsets[1]"},
      {b::kIndicesPerVertex, 1000, "blendIndicesPerVertex"},
      {0, 0x40, "type"},
  };
  for (const Forgery& f : forgeries) {
    SCOPED_TRACE(f.field + " = " + std::to_string(f.value));
    std::vector<uint8_t> forged = bytes;
    put32(forged, p.at(bsb, f.at), f.value);
    const Asset asset = readAsset(forged);
    ASSERT_EQ(asset.rigs.size(), 1u);
    const Rig& rig = asset.rigs[0];
    EXPECT_TRUE(rig.meshes.empty());
    EXPECT_EQ(rig.skeleton.bones.size(), 2u);
    EXPECT_TRUE(hasWarning(rig.provenance, "rw4-spore-mesh", fmt::format("BlendShapeBuffer (row {})", bsb))) << warnings(rig.provenance);
    EXPECT_TRUE(hasWarning(rig.provenance, "rw4-spore-mesh", f.field)) << warnings(rig.provenance);
  }
  // A BlendShape whose two counts disagree is skipped, named; the shapes keep positional names and
  // the BlendFactor clip, bound to nothing by id, stays scalar channels with a warning.
  std::vector<uint8_t> forged = bytes;
  const uint32_t shape = p.rowsOf(spore::kBlendShape)[0];
  put32(forged, p.at(shape, spore::blendshape::kShapeCountAgain), 9);
  const Asset asset = readAsset(forged);
  ASSERT_EQ(asset.rigs.size(), 1u);
  const Rig& rig = asset.rigs[0];
  ASSERT_EQ(rig.meshes.size(), 1u);
  EXPECT_EQ(rig.meshes[0].morphTargets[0].name, "shape_0");
  EXPECT_TRUE(hasWarning(rig.provenance, "rw4-blend-shape", "shapeCountAgain")) << warnings(rig.provenance);
  EXPECT_TRUE(hasWarning(rig.provenance, "rw4-blend-factor", "match no blend-shape mesh")) << warnings(rig.provenance);
}

// The game plays BlendFactor channel i on shape i (the add-on: "Spore only seems to care about the
// order", and it writes one channel a shape in shape-id order): channels whose ids are swapped still
// key the shapes in order, with a warning; a clip of one channel keys the shape its id names.
TEST(Rw4SporeBlendShape, BlendFactorChannelsKeyTheShapesInOrder) {
  std::vector<uint8_t> bytes = sporeBytes(face());
  const test::ParsedArena p = parse(bytes);
  const uint32_t weights = p.rowsOf(kKeyframeAnim)[1];
  const size_t names = u32(bytes, p.at(weights, keyframeanim::kChannelNames)) - p.arena.dictionary[weights].fileOffset;
  const uint32_t smile = u32(bytes, p.at(weights, names)), blink = u32(bytes, p.at(weights, names + 4));
  put32(bytes, p.at(weights, names), blink);
  put32(bytes, p.at(weights, names + 4), smile);
  const Rig rig = readRig(bytes);
  EXPECT_TRUE(hasWarning(rig.provenance, "rw4-blend-factor", "channel i keys shape i")) << warnings(rig.provenance);
  ASSERT_EQ(rig.animations.size(), 1u);
  ASSERT_EQ(rig.animations[0].morphWeights.size(), 1u);
  EXPECT_EQ(rig.animations[0].morphWeights[0].weights, face().animations[0].morphWeights[0].weights);

  // One channel only (the count set to 1; the last channel's keys end at the key that reaches the
  // clip's length): it keys the shape of its id, the other shape stays 0.
  std::vector<uint8_t> one = sporeBytes(face());
  put32(one, p.at(weights, keyframeanim::kChannelCount), 1);
  const Rig single = readRig(one);
  ASSERT_EQ(single.animations.size(), 1u);
  ASSERT_EQ(single.animations[0].morphWeights.size(), 1u);
  const MorphWeightTrack& w = single.animations[0].morphWeights[0];
  ASSERT_EQ(w.times, face().animations[0].morphWeights[0].times);
  for (size_t k = 0; k < w.times.size(); ++k) {
    EXPECT_EQ(w.weights[2 * k], face().animations[0].morphWeights[0].weights[2 * k]) << k;
    EXPECT_EQ(w.weights[2 * k + 1], 0.0f) << k;
  }
}

// Every prefix of the file and a byte flip in every third byte read cleanly or fail with an error.
TEST(Rw4SporeBlendShape, EveryTruncationAndByteFlipFailsCleanly) {
  const size_t read = test::cutAndFlip(sporeBytes(face()), 5, [](const Asset& asset) {
    for (const Rig& rig : asset.rigs) fuzz::exerciseDownstream(rig);
  });
  EXPECT_GT(read, 0u);
}

// The fuzz target's kept seed (tests/data/fuzz/rw4_arena/seed-spore-blend-shapes.rw4) is this
// writer's output for face(), so the target starts from a BlendShapeBuffer, a BlendShape and a
// BlendFactor clip.
TEST(Rw4SporeBlendShape, FuzzSeedIsTheWritersOutput) {
  const std::vector<uint8_t> bytes = sporeBytes(face());
  test::expectKeptSeed("rw4_arena/seed-spore-blend-shapes.rw4", bytes);
  const Asset asset = readAsset(bytes);
  ASSERT_EQ(asset.rigs.size(), 1u);
  ASSERT_EQ(asset.rigs[0].meshes.size(), 1u);
  EXPECT_EQ(asset.rigs[0].meshes[0].morphTargets.size(), 2u);
}
