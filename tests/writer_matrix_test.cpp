// Every writer against glTF as third-party tools write it (issue 27, "What it must show"): one test
// per input × target, each converting the input with `rigport convert --to` and measuring the game
// file against the input with `rigport compare --json`, as a user checks an edit. A cell passes when
// every measure is within compare's default tolerance (the target format's stated precision), or
// when `convert` printed a warning naming what was lost; a cell beyond precision without a warning
// fails. Anything compare finds on one side only must be what the target cannot hold (clips for a
// model format, meshes for a Sims 3 package). Each cell prints its measures ("[ measured ]"), the
// figures README's "Modding" table cites.
//
// The inputs are the demo character exported by rigport and then edited the way other tools write
// (tests/support/gltf_edit.hpp), each reproducing a measured case of the issue:
//   Plain           the export itself
//   TwoClips        two actions (the SKA writer wrote only the first, silently)
//   StepKeys        STEP channels (turned into smooth Hermite curves: 1.6 m off on a 4 m rig)
//   Keys24fps       Blender's default 24 fps keys (CLIP frames are 1/30 s: 0.105 m off)
//   LateStart       a clip whose first key is at 0.5 s
//   ScaleKeys       a ×1.3 chest scale key (dropped silently by three writers: 9-17 cm)
//   BindShape       a ×100 scale and an offset folded into every inverse bind matrix (assimp's FBX
//                   conversions; gltfpack's dequantisation is the same): 16,383 m tall before
//   ReversedJoints  the skin's joint list reversed (the .anm's tracks landed on other bones)
//   AnimatedArmature  an animated node above the skeleton that is no joint (Blender's armature
//                   object, assimp's root): the .anm writer refused the whole conversion
//   PropOnBone      an unskinned mesh node under the head bone (a helmet: the DRS writer wrote it
//                   at its head-local position, 3.0 m below the head)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <nlohmann/json.hpp>

#include "core/axes.hpp"
#include "demo/character.hpp"
#include "support/gltf_edit.hpp"
#include "support/test_support.hpp"

using namespace rigport;
namespace fs = std::filesystem;

namespace {

Rig demo() {
  Rig rig = makeDemoCharacter();
  toGltfAxes(rig);
  return rig;
}

BoneTrack* trackOf(Rig& rig, const std::string& bone) {
  const int32_t b = rig.skeleton.find(bone);
  for (BoneTrack& t : rig.animations.at(0).tracks)
    if (t.bone == b) return &t;
  ADD_FAILURE() << "the demo's walk has no track on " << bone;
  return nullptr;
}

void retime(Animation& anim, const std::function<float(size_t key)>& time) {
  for (BoneTrack& t : anim.tracks) {
    for (auto* times : {&t.translation.times, &t.rotation.times, &t.scale.times}) {
      for (size_t k = 0; k < times->size(); ++k) (*times)[k] = time(k);
    }
  }
  anim.events.clear();
}

// A 0.2 m box riding `bone`, 0.15 m above its origin in the bone's own space.
Mesh helmet(int32_t bone) {
  Mesh box;
  box.name = "helmet";
  box.attachBone = bone;
  for (int i = 0; i < 8; ++i) box.positions.emplace_back(i & 1 ? 0.1f : -0.1f, (i & 2 ? 0.1f : -0.1f) + 0.15f, i & 4 ? 0.1f : -0.1f);
  box.indices = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
  return box;
}

// The input named `name`, saved as `path`.
std::string makeInput(const std::string& name, const std::string& path) {
  Rig rig = demo();
  std::function<void(tinygltf::Model&)> edit;
  if (name == "TwoClips") {
    Animation wave = rig.animations.at(0);
    wave.name = "wave";
    for (BoneTrack& t : wave.tracks) std::reverse(t.rotation.values.begin(), t.rotation.values.end());
    rig.animations.push_back(std::move(wave));
  } else if (name == "StepKeys") {
    if (BoneTrack* t = trackOf(rig, "pelvis")) t->translation.interpolation = Interpolation::Step;
    if (BoneTrack* t = trackOf(rig, "thigh_l")) t->rotation.interpolation = Interpolation::Step;
  } else if (name == "Keys24fps") {
    Animation& walk = rig.animations.at(0);
    retime(walk, [](size_t k) { return static_cast<float>(k) / 24.0f; });
    walk.duration = 0.0f;
  } else if (name == "LateStart") {
    Animation& walk = rig.animations.at(0);
    std::vector<float> first;
    for (const BoneTrack& t : walk.tracks) first = t.rotation.times;
    retime(walk, [&](size_t k) { return 0.5f + (k < first.size() ? first[k] : 0.0f); });
    walk.duration += 0.5f;
  } else if (name == "ScaleKeys") {
    if (BoneTrack* t = trackOf(rig, "spine_03")) {
      t->scale.times = {0.0f, 0.5f, 1.0f};
      t->scale.values = {glm::vec3(1.0f), glm::vec3(1.3f), glm::vec3(1.0f)};
    }
  } else if (name == "BindShape") {
    edit = [](tinygltf::Model& m) {
      test::foldBindShape(m, glm::translate(glm::mat4(1.0f), glm::vec3(0.25f, -0.5f, 1.0f)) * glm::scale(glm::mat4(1.0f), glm::vec3(100.0f)));
    };
  } else if (name == "ReversedJoints") {
    edit = test::reverseJoints;
  } else if (name == "AnimatedArmature") {
    edit = test::animateArmature;
  } else if (name == "PropOnBone") {
    rig.meshes.push_back(helmet(rig.skeleton.find("head")));
  }
  tinygltf::Model model = test::exported(rig);
  if (edit) edit(model);
  return test::save(model, path);
}

// How a target is written and read back.
struct Target {
  const char* name;
  // `convert` arguments after the input, with {dir} for the cell's directory.
  const char* convert;
  // The game file compare reads, and the clip files bound to it (a glob pattern in {dir}).
  const char* second;
  const char* clipFiles;
  // What the target cannot hold, so compare finds it on the input's side only.
  std::set<std::string> cannotHold;
  bool clipsOneByOne = false;  // compared per clip (--clip), the input as the clips' skeleton
};

const Target kTargets[] = {
    {"DffAnm", "--to renderware-dff -o {dir}/m.dff --anim-out {dir}/{clip}.anm", "m.dff", ".anm", {}},
    {"DrsSka", "--to battleforge-drs -o {dir}/m.drs --anim-out {dir}/{clip}.ska", "m.drs", ".ska", {}},
    {"Sims3Package", "--to sims3-package -o {dir}/m.package", "m.package", "", {"mesh"}},
    {"Sims3Clip", "--to sims3-clip -o {dir}/{clip}.clip", "", ".clip", {"mesh"}, true},
    {"Rw4Arena", "--to rw4-arena -o {dir}/m.psg", "m.psg", "", {"clip"}},
    {"Sluggers", "--to sluggers-model -o {dir}/m.sluggers", "m.sluggers", "", {"clip"}},
};

void PrintTo(const Target& target, std::ostream* os) { *os << target.name; }

const char* const kInputs[] = {"Plain", "TwoClips", "StepKeys", "Keys24fps", "LateStart", "ScaleKeys", "BindShape", "ReversedJoints",
                                "AnimatedArmature", "PropOnBone"};

std::string withDir(std::string text, const std::string& dir) {
  for (size_t at; (at = text.find("{dir}")) != std::string::npos;) text.replace(at, 5, dir);
  return text;
}

std::vector<std::string> filesEndingIn(const std::string& dir, const std::string& ext) {
  std::vector<std::string> out;
  if (ext.empty()) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ext) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// One `rigport compare --json` run, checked: unmatched only what the target cannot hold; returns
// the measures beyond tolerance, described.
std::vector<std::string> compareCell(const Target& target, const std::string& args, const std::string& label) {
  const test::CliRun run = test::runCli("compare " + args + " --json", test::Capture::StdoutOnly);
  EXPECT_TRUE(run.code == 0 || run.code == 1) << "rigport compare " << args << "\n" << run.text;
  const nlohmann::json report = nlohmann::json::parse(run.text, nullptr, false);
  if (report.is_discarded() || !report.contains("measures")) {
    ADD_FAILURE() << "rigport compare " << args << ": no JSON report\n" << run.text;
    return {"no report"};
  }
  for (const auto& u : report["unmatched"]) {
    EXPECT_TRUE(target.cannotHold.count(u["kind"].get<std::string>()) != 0 && u["onlyIn"] == "first")
        << label << ": only in the " << u["onlyIn"] << " file: " << u["kind"] << " '" << u["name"] << "'";
  }
  std::vector<std::string> beyond;
  std::string measured;
  for (const auto& m : report["measures"]) {
    if (m["compared"].get<size_t>() == 0) continue;
    measured += fmt::format("  {} {:.3g} m", m["measure"].get<std::string>(), m["worst"].get<double>());
    if (!m["within"].get<bool>()) beyond.push_back(fmt::format("{} {:.3g} m at {}", m["measure"].get<std::string>(), m["worst"].get<double>(), m["where"].dump()));
  }
  std::printf("[ measured ] %s (tolerance %.3g m):%s\n", label.c_str(), report["tolerance"].get<double>(), measured.c_str());
  return beyond;
}

class WriterMatrix : public testing::TestWithParam<std::tuple<const char*, Target>> {};

TEST_P(WriterMatrix, WithinPrecisionOrTheLossIsNamed) {
  const std::string input = std::get<0>(GetParam());
  const Target& target = std::get<1>(GetParam());
  const std::string dir = test::scratchDir(fmt::format("writer_matrix_{}_{}", input, target.name));
  const std::string inFile = makeInput(input, dir + "/in.glb");

  const test::CliRun converted = test::runCli("convert " + test::quote(inFile) + " " + withDir(target.convert, dir) + " --overwrite");
  ASSERT_EQ(converted.code, 0) << converted.text;
  // A loss is named with its size: every writer's loss warning says "largest deviation".
  if (target.cannotHold.count("mesh") != 0) {
    const std::string dropped = input == "PropOnBone" ? "2 meshes (3986 vertices) are not written" : "1 meshes (3978 vertices) are not written";
    EXPECT_NE(converted.text.find(dropped), std::string::npos) << "meshes dropped silently\n" << converted.text;
  }
  const bool warned = converted.text.find("warning") != std::string::npos && converted.text.find("largest deviation") != std::string::npos;

  std::vector<std::string> beyond;
  const std::vector<std::string> clips = filesEndingIn(dir, target.clipFiles);
  std::string allow = target.cannotHold.empty() ? "" : " --allow-missing";
  if (target.clipsOneByOne) {
    ASSERT_FALSE(clips.empty()) << converted.text;
    for (const std::string& clip : clips) {
      const std::string name = fs::path(clip).stem().string();
      const auto b = compareCell(target, test::quote(inFile) + " " + test::quote(clip) + " --skeleton-b " + test::quote(inFile) + " --clip " + name + allow,
                                 fmt::format("{} -> {} ({})", input, target.name, name));
      beyond.insert(beyond.end(), b.begin(), b.end());
    }
  } else {
    std::string args = test::quote(inFile) + " " + test::quote(dir + "/" + target.second) + allow;
    for (const std::string& clip : clips) args += " --anim-b " + test::quote(clip);
    beyond = compareCell(target, args, fmt::format("{} -> {}", input, target.name));
  }
  if (!beyond.empty()) {
    std::string all;
    for (const std::string& b : beyond) all += "\n  " + b;
    EXPECT_TRUE(warned) << input << " -> " << target.name << ": beyond the stated precision without a warning:" << all << "\n" << converted.text;
  }
}

INSTANTIATE_TEST_SUITE_P(Inputs, WriterMatrix, testing::Combine(testing::ValuesIn(kInputs), testing::ValuesIn(kTargets)),
                         [](const testing::TestParamInfo<WriterMatrix::ParamType>& info) {
                           return std::string(std::get<0>(info.param)) + "_to_" + std::get<1>(info.param).name;
                         });

}  // namespace
