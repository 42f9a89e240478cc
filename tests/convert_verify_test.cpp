// `convert --to FORMAT` measures what it wrote (pipeline/verify.hpp, issue 27): the encoded files
// read back in memory and compared with the input as `rigport compare` compares them. A writer that
// loses something known (the .anm holds no scale keys: a ×1.3 chest scale on the demo's walk) gets one
// pose-loss warning giving the measured size and place, the same as `rigport compare` finds in the
// files written; a lossless write gets none; --strict refuses the loss; --no-verify skips the check;
// a part that does not read back is one note, and the conversion goes on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <nlohmann/json.hpp>

#include "core/axes.hpp"
#include "core/fit.hpp"
#include "demo/character.hpp"
#include "formats/registry.hpp"
#include "pipeline/encode.hpp"
#include "pipeline/verify.hpp"
#include "support/gltf_edit.hpp"
#include "support/skin_faults.hpp"
#include "support/test_support.hpp"
#include "support/writer_cell.hpp"

using namespace rigport;
namespace fs = std::filesystem;

namespace {

Rig demo(bool scaleKeys, uint32_t vertices = DemoOptions{}.vertices) {
  DemoOptions options;
  options.vertices = vertices;
  Rig rig = makeDemoCharacter(options);
  toGltfAxes(rig);
  if (!scaleKeys) return rig;
  const int32_t chest = rig.skeleton.find("spine_03");
  for (BoneTrack& t : rig.animations.at(0).tracks) {
    if (t.bone != chest) continue;
    t.scale.times = {0.0f, 0.5f, 1.0f};
    t.scale.values = {glm::vec3(1.0f), glm::vec3(1.3f), glm::vec3(1.0f)};
  }
  return rig;
}

struct Converted {
  std::string dir;
  test::CliRun run;
  nlohmann::json report;  // convert --json
};

Converted convertToDff(const std::string& name, bool scaleKeys, const std::string& flags) {
  Converted c;
  c.dir = test::scratchDir("convert_verify_" + name);
  const std::string in = test::writeGlb(demo(scaleKeys), c.dir + "/in.glb");
  c.run = test::runCli(fmt::format("convert {} --to renderware-dff -o {}/m.dff --anim-out {}/walk.anm --json{}", test::quote(in), c.dir, c.dir, flags),
                       test::Capture::StdoutOnly);
  c.report = nlohmann::json::parse(c.run.text, nullptr, false);
  return c;
}

// The messages of the warnings with this code.
std::vector<std::string> warnings(const Converted& c, const std::string& code) {
  std::vector<std::string> out;
  if (c.report.is_discarded()) return out;
  for (const auto& file : c.report["files"])
    for (const auto& w : file["warnings"])
      if (w["code"] == code) out.push_back(w["message"].get<std::string>());
  return out;
}

// The dropped chest scale moves the torso and arms: the warning states the worst of each measure as
// `rigport compare` measures the files written, at the same place.
TEST(ConvertVerify, ScaleKeysIntoAnmAreMeasured) {
  const Converted c = convertToDff("scale", true, "");
  ASSERT_EQ(c.run.code, 0) << c.run.text;
  const std::vector<std::string> lost = warnings(c, kPoseLossCode);
  ASSERT_EQ(lost.size(), 1u) << c.run.text;
  const test::CliRun compared = test::runCli(fmt::format("compare {}/in.glb {}/m.dff --anim-b {}/walk.anm --json", c.dir, c.dir, c.dir),
                                             test::Capture::StdoutOnly);
  ASSERT_EQ(compared.code, 1) << compared.text;
  const nlohmann::json report = nlohmann::json::parse(compared.text);
  const std::string text = "warning: " + lost.front();
  for (const auto& m : report["measures"]) {
    const std::string measure = m["measure"].get<std::string>();
    const double worst = m["worst"].get<double>();
    const double stated = test::statedSize(text, measure);
    EXPECT_NEAR(stated, worst, 5e-3 * worst + 1e-12) << measure << ": " << lost.front();
    if (m["within"].get<bool>()) continue;
    // Beyond: the place compare names is the one the warning names.
    const auto& where = m["where"];
    EXPECT_EQ(where["clip"], "walk") << measure;
    EXPECT_NE(text.find(fmt::format("{} {:.3g} m (clip 'walk' at {:.4f} s", measure, worst, where["time"].get<double>())), std::string::npos)
        << where.dump() << "\n" << lost.front();
  }
  // Beyond precision only in the clips: the rest pose is written exactly.
  EXPECT_LT(test::statedSize(text, "rest joints"), 1e-4 * report["modelSize"].get<double>()) << lost.front();
  EXPECT_GT(test::statedSize(text, "clip vertices"), 0.05) << "the 30% chest scale moves the arms by centimetres: " << lost.front();
  EXPECT_TRUE(warnings(c, kPoseUnverifiedCode).empty()) << c.run.text;
}

TEST(ConvertVerify, LosslessWriteSaysNothing) {
  const Converted c = convertToDff("lossless", false, "");
  ASSERT_EQ(c.run.code, 0) << c.run.text;
  EXPECT_TRUE(warnings(c, kPoseLossCode).empty()) << c.run.text;
  EXPECT_TRUE(warnings(c, kPoseUnverifiedCode).empty()) << c.run.text;
  EXPECT_TRUE(fs::exists(c.dir + "/m.dff") && fs::exists(c.dir + "/walk.anm"));
}

TEST(ConvertVerify, StrictRefusesThePoseLossAndWritesNothing) {
  const Converted c = convertToDff("strict", true, " --strict");
  EXPECT_EQ(c.run.code, 1) << c.run.text;
  ASSERT_FALSE(c.report.is_discarded()) << c.run.text;
  const std::string error = c.report["files"].at(0)["error"].dump();
  EXPECT_NE(error.find("pose-loss; strict"), std::string::npos) << error;
  EXPECT_NE(error.find("clip vertices"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(c.dir + "/m.dff"));
  EXPECT_FALSE(fs::exists(c.dir + "/walk.anm"));
}

TEST(ConvertVerify, NoVerifySkipsTheCheck) {
  const Converted c = convertToDff("skip", true, " --no-verify --strict");
  ASSERT_EQ(c.run.code, 0) << c.run.text;
  EXPECT_TRUE(warnings(c, kPoseLossCode).empty()) << c.run.text;
  EXPECT_FALSE(warnings(c, "scale-keys-dropped").empty()) << "the writer's own warning stays: " << c.run.text;
  EXPECT_TRUE(fs::exists(c.dir + "/m.dff"));
  const test::CliRun usage = test::runCli(fmt::format("convert {}/in.glb -o {}/x.glb --no-verify", c.dir, c.dir));
  EXPECT_EQ(usage.code, 2) << usage.text;
  EXPECT_NE(usage.text.find("--no-verify goes with --to"), std::string::npos) << usage.text;
}

// An .anm that does not read back (its bytes cut short) is a note; the model is still measured.
TEST(ConvertVerify, APartThatDoesNotReadBackIsOneNote) {
  const Rig rig = demo(false);
  const FormatInfo* dff = findFormat("renderware-dff");
  const FormatInfo* anm = findFormat("renderware-anm");
  ASSERT_TRUE(dff != nullptr && anm != nullptr);
  auto encoded = encodeForFormat(rig, *dff, "out/m.dff", anm, "out/walk.anm");
  ASSERT_TRUE(encoded) << encoded.error().describe();
  ASSERT_EQ(encoded->files.size(), 2u);
  encoded->files[1].second.resize(20);
  const Provenance measured = measureWritten(rig, *encoded, ReadOptions{});
  ASSERT_EQ(measured.warnings.size(), 1u);
  EXPECT_EQ(measured.warnings[0].code, kPoseUnverifiedCode);
  EXPECT_NE(measured.warnings[0].message.find("out/walk.anm does not read back"), std::string::npos) << measured.warnings[0].message;
  EXPECT_NE(measured.warnings[0].message.find("not measured whole"), std::string::npos) << measured.warnings[0].message;
}

// A writer that writes something else than it was given is caught by the check: files encoded from
// a rig that differs from the input in one thing get the pose-loss warning, with the measure that
// sees it: a joint's inverse bind matrix (the DFF's rest pose is read from it) moves the joint at
// rest; a weight given to another bone moves its vertex in the clip (at rest every joint's skinning
// is the identity); a moved vertex moves at rest. Every other vertex is posed on both sides at once
// (the same positions and weights: Pose::verticesWith).
TEST(ConvertVerify, AWrongWriteIsCaught) {
  const FormatInfo* dff = findFormat("renderware-dff");
  const FormatInfo* anm = findFormat("renderware-anm");
  const Rig rig = demo(false);
  // `written` encoded as the DFF (and, with clips, the .anm) and measured against `input`.
  const auto measuredAgainst = [&](const Rig& input, const Rig& written) {
    const bool clips = !input.animations.empty();
    auto encoded = encodeForFormat(written, *dff, "out/m.dff", clips ? anm : nullptr, clips ? "out/walk.anm" : "");
    EXPECT_TRUE(encoded) << encoded.error().describe();
    return encoded ? measureWritten(input, *encoded, ReadOptions{}) : Provenance{};
  };
  const auto measured = [&](const Rig& written) { return measuredAgainst(rig, written); };
  ASSERT_TRUE(measured(rig).warnings.empty());
  Rig inverseBind = test::withInverseBindMoved(rig, "spine_03", glm::vec3(0.0f, 0.05f, 0.0f));
  Rig weight = rig;
  Mesh& mesh = weight.meshes.at(0);
  const auto twoBones = [&](size_t v) {
    const uint32_t i = mesh.influenceOffsets[v];
    return mesh.influenceOffsets[v + 1] - i >= 2 && mesh.influences[i].bone != mesh.influences[i + 1].bone &&
           mesh.influences[i].weight != mesh.influences[i + 1].weight;
  };
  size_t v = 0;
  while (v + 1 < mesh.influenceOffsets.size() && !twoBones(v)) ++v;
  ASSERT_LT(v + 1, mesh.influenceOffsets.size()) << "a vertex with two weights";
  std::swap(mesh.influences[mesh.influenceOffsets[v]].bone, mesh.influences[mesh.influenceOffsets[v] + 1].bone);
  Rig vertex = rig;
  vertex.meshes.at(0).positions.at(10).y += 0.05f;
  for (const auto& [what, written, sees] : {std::tuple{"inverse bind", &inverseBind, "rest joints"}, std::tuple{"weight", &weight, "clip vertices"},
                                            std::tuple{"vertex", &vertex, "bind vertices"}}) {
    const Provenance p = measured(*written);
    ASSERT_EQ(p.warnings.size(), 1u) << what;
    EXPECT_EQ(p.warnings[0].code, kPoseLossCode) << what;
    const std::string& message = p.warnings[0].message;
    EXPECT_NE(message.find(sees), std::string::npos) << what << ": " << message;
    EXPECT_EQ(message.find(std::string(sees) + " 0 m"), std::string::npos) << what << ": " << message;
  }
  // A model without clips, which the check shows within its precision without posing where it can
  // (provablyWithin()): a lossless write says nothing, the wrong ones at rest are caught as above.
  const auto model = [](Rig r) {
    r.animations.clear();
    return r;
  };
  const Rig still = model(rig);
  const auto measuredStill = [&](const Rig& written) { return measuredAgainst(still, written); };
  EXPECT_TRUE(measuredStill(still).warnings.empty());
  for (const auto& [what, written, sees] : {std::tuple{"inverse bind", model(inverseBind), "rest joints"}, std::tuple{"vertex", model(vertex), "bind vertices"}}) {
    const Provenance p = measuredStill(written);
    ASSERT_EQ(p.warnings.size(), 1u) << what << ", no clip";
    EXPECT_EQ(p.warnings[0].code, kPoseLossCode) << what << ", no clip";
    const std::string& message = p.warnings[0].message;
    EXPECT_EQ(message.find(std::string(sees) + " 0 m"), std::string::npos) << what << ", no clip: " << message;
  }
}

// A mesh beyond the DFF's 65535 vertices is split (exactly): the check pairs the pieces read back with
// the input split the same way, so no pose-loss (before: bind vertices 0.256 m, vertices of other
// pieces paired by index). The scale keys' loss on it is measured with the vertices posed at a few
// of the clip's times (kCheckClipVertexPoses), which the warning says.
TEST(ConvertVerify, ASplitMeshIsNoLossAndABigMeshIsPosedAtFewTimes) {
  const FormatInfo* dff = findFormat("renderware-dff");
  const FormatInfo* anm = findFormat("renderware-anm");
  ASSERT_TRUE(dff != nullptr && anm != nullptr);
  for (const bool scaleKeys : {false, true}) {
    const Rig rig = demo(scaleKeys, 70000);
    auto encoded = encodeForFormat(rig, *dff, "out/m.dff", anm, "out/walk.anm");
    ASSERT_TRUE(encoded) << encoded.error().describe();
    const bool split = std::any_of(encoded->losses.warnings.begin(), encoded->losses.warnings.end(), [](const Warning& w) { return w.code == "mesh-split"; });
    EXPECT_TRUE(split) << "the mesh is split";
    const Provenance measured = measureWritten(rig, *encoded, ReadOptions{});
    if (!scaleKeys) {
      EXPECT_TRUE(measured.warnings.empty()) << measured.warnings.front().message;
      continue;
    }
    ASSERT_EQ(measured.warnings.size(), 1u);
    const std::string& message = measured.warnings[0].message;
    EXPECT_EQ(measured.warnings[0].code, kPoseLossCode);
    EXPECT_LT(test::statedSize("warning: " + message, "bind vertices"), 1e-4 * 2.56) << message;
    EXPECT_GT(test::statedSize("warning: " + message, "clip vertices"), 0.05) << message;
    EXPECT_NE(message.find("vertices posed at 3 of"), std::string::npos) << message;
  }
}

}  // namespace

namespace {

// The rig's bytes that the check compares: every mesh array and the skeleton's rest pose.
void expectSameMeshes(const Rig& a, const Rig& b, const std::string& what) {
  ASSERT_EQ(a.meshes.size(), b.meshes.size()) << what;
  const auto same = [](const auto& x, const auto& y) { return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof x[0]) == 0); };
  for (size_t m = 0; m < a.meshes.size(); ++m) {
    const Mesh& x = a.meshes[m];
    const Mesh& y = b.meshes[m];
    EXPECT_EQ(x.name, y.name) << what;
    EXPECT_TRUE(same(x.positions, y.positions) && same(x.normals, y.normals) && same(x.uvs, y.uvs) && same(x.indices, y.indices)) << what << " mesh " << m;
    EXPECT_TRUE(same(x.influences, y.influences) && same(x.influenceOffsets, y.influenceOffsets)) << what << " mesh " << m;
    EXPECT_EQ(x.morphTargets.size(), y.morphTargets.size()) << what << " mesh " << m;
    EXPECT_EQ(x.attachBone, y.attachBone) << what << " mesh " << m;
  }
  ASSERT_EQ(a.skeleton.bones.size(), b.skeleton.bones.size()) << what;
  for (size_t i = 0; i < a.skeleton.bones.size(); ++i) {
    EXPECT_EQ(a.skeleton.bones[i].name, b.skeleton.bones[i].name) << what;
    EXPECT_EQ(a.skeleton.bones[i].parent, b.skeleton.bones[i].parent) << what;
    EXPECT_EQ(a.skeleton.bones[i].translation, b.skeleton.bones[i].translation) << what;
  }
  EXPECT_EQ(a.animations.size(), b.animations.size()) << what;
}

}  // namespace

// encodeForFormatKeeping() (what `convert --to` calls, so that the check keeps the input) writes the
// files encodeForFormat() of a copy writes, with the same losses, and leaves the rig as it was given:
// its meshes lent to the encoder where fitting leaves every one as it is (the demo into a DFF and its
// .anm), copied where it does not (shape keys the DFF drops; a mesh beyond 65535 vertices split).
TEST(ConvertVerify, EncodingKeepsTheRigItWasGiven) {
  const FormatInfo* dff = findFormat("renderware-dff");
  const FormatInfo* anm = findFormat("renderware-anm");
  ASSERT_TRUE(dff != nullptr && anm != nullptr);
  Rig shaped = demo(true);
  shaped.meshes[0].morphTargets.resize(1);
  shaped.meshes[0].morphTargets[0].positionDeltas.assign(shaped.meshes[0].positions.size(), glm::vec3(0.0f, 0.01f, 0.0f));
  const std::pair<const char*, Rig> cases[] = {{"lent", demo(true)}, {"shape keys", shaped}, {"split", demo(false, 70000)}};
  for (const auto& [what, given] : cases) {
    const bool lent = std::all_of(given.meshes.begin(), given.meshes.end(), [&](const Mesh& m) { return fitLeavesMesh(m, dff->writeLimits(given)); });
    EXPECT_EQ(lent, std::string(what) == "lent") << what;
    Rig rig = given;
    auto kept = encodeForFormatKeeping(rig, *dff, "out/m.dff", anm, "out/walk.anm");
    auto copied = encodeForFormat(given, *dff, "out/m.dff", anm, "out/walk.anm");
    ASSERT_TRUE(kept && copied) << what;
    ASSERT_EQ(kept->files.size(), copied->files.size()) << what;
    for (size_t f = 0; f < kept->files.size(); ++f) {
      EXPECT_EQ(kept->files[f].first, copied->files[f].first) << what;
      EXPECT_TRUE(kept->files[f].second == copied->files[f].second) << what << ": " << kept->files[f].first;
    }
    ASSERT_EQ(kept->losses.warnings.size(), copied->losses.warnings.size()) << what;
    for (size_t w = 0; w < kept->losses.warnings.size(); ++w) EXPECT_EQ(kept->losses.warnings[w].message, copied->losses.warnings[w].message) << what;
    expectSameMeshes(rig, given, what);
  }
}

// fitLeavesMesh() says which meshes fitToLimits() leaves as they are: those come out of it bit for bit.
TEST(ConvertVerify, FitLeavesTheMeshesItSaysItLeaves) {
  for (const char* name : {"renderware-dff", "rw4-arena", "battleforge-drs"}) {
    const FormatInfo* format = findFormat(name);
    ASSERT_TRUE(format != nullptr) << name;
    Rig rig = demo(false);
    Mesh rider = rig.meshes[0];
    rider.influences.clear();
    rider.influenceOffsets.clear();
    rider.attachBone = 3;
    rig.meshes.push_back(rider);
    const Rig before = rig;
    const WriteLimits limits = format->writeLimits(rig);
    std::vector<bool> leaves;
    for (const Mesh& m : rig.meshes) leaves.push_back(fitLeavesMesh(m, limits));
    ASSERT_TRUE(fitToLimits(rig, limits, name)) << name;
    ASSERT_EQ(rig.meshes.size(), before.meshes.size()) << name;
    for (size_t m = 0; m < leaves.size(); ++m) {
      if (!leaves[m]) continue;
      Rig x, y;
      x.meshes.push_back(rig.meshes[m]);
      y.meshes.push_back(before.meshes[m]);
      expectSameMeshes(x, y, std::string(name) + " mesh " + std::to_string(m));
    }
    EXPECT_EQ(leaves.back(), !limits.skinnedMeshesOnly) << name << ": the rider is bound where every mesh is skinned";
  }
}

// releaseUnmeasured() gives back only what the check does not look at: the check's warning (every
// measure's size and place) is the same with the input's normals, UVs and triangles gone.
TEST(ConvertVerify, ReleasingWhatTheCheckDoesNotMeasureChangesNothing) {
  const FormatInfo* dff = findFormat("renderware-dff");
  const FormatInfo* anm = findFormat("renderware-anm");
  Rig rig = demo(true);
  auto encoded = encodeForFormatKeeping(rig, *dff, "out/m.dff", anm, "out/walk.anm");
  ASSERT_TRUE(encoded) << encoded.error().describe();
  const Provenance whole = measureWritten(rig, *encoded, ReadOptions{});
  releaseUnmeasured(rig, *encoded);
  EXPECT_TRUE(rig.meshes[0].normals.empty() && rig.meshes[0].indices.empty());
  const Provenance released = measureWritten(rig, *encoded, ReadOptions{});
  ASSERT_EQ(whole.warnings.size(), 1u);
  ASSERT_EQ(released.warnings.size(), 1u);
  EXPECT_EQ(whole.warnings[0].message, released.warnings[0].message);
  // Where the check splits the input like the writer, it keeps them.
  Rig big = demo(false, 70000);
  auto split = encodeForFormatKeeping(big, *dff, "out/m.dff", anm, "out/walk.anm");
  ASSERT_TRUE(split) << split.error().describe();
  releaseUnmeasured(big, *split);
  EXPECT_FALSE(big.meshes[0].indices.empty());
}
