// Every writer against glTF that other tools wrote (issue 27, "What it must show"): the corpus
// tools/blender_corpus.py makes at test time (the writer_corpus_make CTest fixture, into the build
// tree, never committed): the demo character imported into Blender 3.4 and exported under a modder's
// usual options and edits, and the default export passed through gltfpack with and without
// quantisation. Each input × target cell is converted with `rigport convert --to` and measured with
// `rigport compare --json` (tests/support/writer_cell.hpp, the rule tests/writer_matrix_test.cpp
// holds its hand-made variants to): within the target's stated precision, or a warning naming the
// loss and its size. The one input made to exceed a format's limit (327 bones against a 256-entry
// palette) may be refused, cleanly: the limit named and nothing written. Cells known to be beyond
// precision silently are listed below with their cause, and checked to still be so.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include <fmt/format.h>

#include "support/test_support.hpp"
#include "support/writer_cell.hpp"

using namespace rigport;
namespace fs = std::filesystem;

namespace {

// tools/blender_corpus.py's CASES and PACKED, one file each.
const char* const kInputs[] = {"default.glb",      "zup.glb",           "nobake.glb",        "step_linear.glb", "bezier.glb",
                               "influences8.glb",  "shape_keys.glb",    "nonuniform_scale.glb", "mirrored_scale.glb",
                               "mesh_offset.glb",  "two_actions.glb",   "separate.gltf",     "prop_on_bone.glb", "many_bones.glb",
                               "gltfpack.glb",     "gltfpack_noq.glb"};

// Cells measured beyond the stated precision with no warning, not fixed yet (issue 27 §2), each with
// its measure and suspected cause. Each must still be so: when a fix brings one within precision or
// names its loss, its test fails saying to take it off this list.
const std::map<std::string, std::string> kKnownSilent = {
    {"bezier_to_DffAnm",
     "clip joints 1.62 m at 0.0083 s (toe_r): Blender's BEZIER export writes consecutive rotation keys of a bone in opposite "
     "hemispheres (thigh_r: z = +1 then -0.9989, w ~ 0), so glTF's component-wise cubic passes near a zero quaternion and turns "
     "the leg over within a frame; the .anm's linear keys every 1/60 s miss that turn"},
    {"mirrored_scale_to_DffAnm",
     "rest within 6.4e-7 m, clip vertices 3.66 m from the first sample: the armature's scale -1 sits on the frame above the HAnim "
     "root; once .anm keys pose the nodes the skeleton is mirrored back (issue 27 §2, 'a mirrored armature')"},
    // The DRS rest pose under a transformed armature object (issue 27 §2, "a transformed armature
    // object"): bind vertices stay within 8e-7 m, the joints do not. BoneMatrix holds an orthonormal
    // rotation (battleforge_drs.md §4), so the armature's scale or mirror cannot be kept in it.
    // (The Z-up export's 0.362 m at 'root' was compare pairing Blender's armature node 'root' with
    // the DRS's joint 'root': compare now pairs joints with joints first; the DRS is within 1.6e-6 m.)
    {"nonuniform_scale_to_DrsSka", "rest joints 0.092 m at 'clavicle_l', clip joints 0.548 m (armature scale 1 x 0.7 x 1.4)"},
    {"mirrored_scale_to_DrsSka", "rest joints 0.513 m at 'root', clip joints 2.16 m (armature scale -1: a point mirror)"},
};

std::string corpusFile(const std::string& name) { return std::string(RIGPORT_CORPUS_DIR) + "/" + name; }

std::string stem(const char* file) { return fs::path(file).stem().string(); }

// Blender and gltfpack write valid glTF; the validator's warnings on them are where they put the
// skinned mesh node (beside the joints, and with gltfpack's dequantisation transform on it).
TEST(WriterCorpusInputs, AreValidGltf) {
  std::string files;
  for (const char* input : kInputs) files += " " + test::quote(corpusFile(input));
  std::string output;
  test::runCommand("node " + test::quote(std::string(RIGPORT_SOURCE_DIR) + "/tools/validate_gltf.mjs") + files, &output);
  for (const char* input : kInputs) {
    const size_t line = output.find(corpusFile(input) + ": errors=");
    ASSERT_NE(line, std::string::npos) << input << " was not validated (the writer_corpus_make fixture makes the corpus):\n" << output;
    EXPECT_EQ(output.compare(line + corpusFile(input).size(), 10, ": errors=0"), 0) << output.substr(line, output.find('\n', line) - line);
  }
}

class WriterCorpus : public testing::TestWithParam<std::tuple<const char*, test::WriterTarget>> {};

TEST_P(WriterCorpus, WithinPrecisionOrTheLossIsNamed) {
  const std::string input = std::get<0>(GetParam());
  const test::WriterTarget& target = std::get<1>(GetParam());
  const std::string inFile = corpusFile(input);
  ASSERT_TRUE(fs::exists(inFile)) << inFile << " is missing: the writer_corpus_make test makes it (ctest -R WriterCorpus runs it first)";
  const std::string dir = test::scratchDir(fmt::format("writer_corpus_{}_{}", stem(input.c_str()), target.name));
  const std::string label = fmt::format("{} -> {}", input, target.name);

  const test::WriterCell cell = test::runWriterCell(label, inFile, target, dir);
  if (cell.convertCode != 0) {
    ASSERT_EQ(input, "many_bones.glb") << cell.convertText;
    EXPECT_NE(cell.convertText.find("327 joints"), std::string::npos) << cell.convertText;
    EXPECT_NE(cell.convertText.find("nothing was written"), std::string::npos) << cell.convertText;
    EXPECT_TRUE(fs::is_empty(dir)) << label << ": refused, yet wrote files";
    return;
  }
  if (target.cannotHold.count("mesh") != 0) {
    EXPECT_NE(cell.convertText.find("are not written"), std::string::npos) << "meshes dropped silently\n" << cell.convertText;
  }
  const auto known = kKnownSilent.find(stem(input.c_str()) + "_to_" + target.name);
  if (known != kKnownSilent.end()) {
    std::printf("[ known    ] %s: %s\n", label.c_str(), known->second.c_str());
    EXPECT_TRUE(test::silentlyBeyond(cell)) << label << " is fixed: take it off kKnownSilent";
    return;
  }
  test::expectWithinPrecisionOrNamed(label, cell);
}

INSTANTIATE_TEST_SUITE_P(Inputs, WriterCorpus, testing::Combine(testing::ValuesIn(kInputs), testing::ValuesIn(test::writerTargets())),
                         [](const testing::TestParamInfo<WriterCorpus::ParamType>& info) {
                           return stem(std::get<0>(info.param)) + "_to_" + std::get<1>(info.param).name;
                         });

}  // namespace
