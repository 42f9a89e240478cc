// Every writer against glTF that other tools wrote (issue 27, "What it must show"): the corpus
// tools/blender_corpus.py makes at test time (the writer_corpus_make CTest fixture, into the build
// tree, never committed): the demo character imported into Blender 3.4 and exported under a modder's
// usual options and edits, and the default export passed through gltfpack with and without
// quantisation. Each input × target cell is converted with `rigport convert --to` and measured with
// `rigport compare --json` (tests/support/writer_cell.hpp, the rule tests/writer_matrix_test.cpp
// holds its hand-made variants to): within the target's stated precision, or a warning stating, for
// each measure beyond it, a size at least the measured one (convert's pose-loss warning,
// pipeline/verify.hpp). The one input made to exceed a format's limit (327 bones against a 256-entry
// palette) may be refused, cleanly: the limit named and nothing written. No cell is exempt.
#include <gtest/gtest.h>

#include <filesystem>
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
  test::expectWithinPrecisionOrNamed(label, cell);
}

INSTANTIATE_TEST_SUITE_P(Inputs, WriterCorpus, testing::Combine(testing::ValuesIn(kInputs), testing::ValuesIn(test::writerTargets())),
                         [](const testing::TestParamInfo<WriterCorpus::ParamType>& info) {
                           return stem(std::get<0>(info.param)) + "_to_" + std::get<1>(info.param).name;
                         });

}  // namespace
