// End to end for RenderWare: the real CLI converts each DFF sample (with its .anm, or with IFP
// packages) to a .glb, which must pass the Khronos glTF-Validator with 0 errors and 0 warnings and
// match the librw dump read back through tinygltf: skin joints = HAnim nodes in node order, their
// node parents = the dump's frame parents, inverse bind matrices = the dump's invMat taken to glTF
// axes (C·M·C⁻¹, core/axes.hpp), JOINTS_0/WEIGHTS_0 = the dump's node indices and weights, and one
// channel set per node with the .anm's key times. One Blender import checks the vertex groups,
// bones and keyframes a user sees (format note gltf_ecosystem.md §2.3).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <tiny_gltf.h>

#include "core/axes.hpp"
#include "formats/renderware/axes.hpp"
#include "support/blender.hpp"
#include "support/gltf_pose.hpp"
#include "support/gltf_validator.hpp"
#include "support/librw_dump.hpp"
#include "support/test_support.hpp"

using namespace rigport;

namespace {

const std::string kAnm = "synthetic_skin_rw36003.anm";

std::string rwSample(const std::string& name) { return test::sample("renderware/" + name); }
std::string stem(const std::string& file) { return file.substr(0, file.rfind('.')); }

// Runs `rigport convert DFF --anim A... -o DIR` and returns the .glb's path ("" on failure).
std::string convert(const std::string& dir, const std::string& dff, const std::vector<std::string>& anims) {
  std::string args = "convert " + test::quote(rwSample(dff));
  for (const std::string& a : anims) args += " --anim " + test::quote(rwSample(a));
  const test::CliRun run = test::runCli(args + " -o " + test::quote(dir));
  EXPECT_EQ(run.code, 0) << args << "\n" << run.text;
  return run.code == 0 ? dir + "/" + stem(dff) + ".glb" : std::string();
}

// node index -> parent node index (-1 for scene roots).
std::vector<int> nodeParents(const tinygltf::Model& m) {
  std::vector<int> parent(m.nodes.size(), -1);
  for (size_t n = 0; n < m.nodes.size(); ++n) {
    for (int c : m.nodes[n].children) parent.at(static_cast<size_t>(c)) = static_cast<int>(n);
  }
  return parent;
}

int nodeNamed(const tinygltf::Model& m, const std::string& name) {
  for (size_t n = 0; n < m.nodes.size(); ++n) {
    if (m.nodes[n].name == name) return static_cast<int>(n);
  }
  return -1;
}

// A vertex's influences as {node index: weight}: zero weights dropped, normalised to sum 1.
using Weights = std::map<int, double>;
Weights normalised(Weights w) {
  double sum = 0;
  for (auto it = w.begin(); it != w.end();) {
    if (it->second == 0.0) {
      it = w.erase(it);
    } else {
      sum += it->second;
      ++it;
    }
  }
  for (auto& [joint, weight] : w) weight /= sum;
  return w;
}

Weights dumpWeights(const test::DumpVertex& v) {
  Weights w;
  for (int k = 0; k < 4; ++k) w[v.idx[k]] += v.w[k];
  return normalised(w);
}

// Per node (HAnim node index), the key times of the `.anm.dump.txt` ("key i time T ... node J").
std::map<int, std::vector<double>> anmKeyTimes(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  std::map<int, std::vector<double>> times;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string tag, word;
    int index = 0;
    double time = 0;
    if (!(s >> tag) || tag != "key") continue;
    s >> index >> word >> time;
    const size_t at = line.rfind(" node ");
    EXPECT_NE(at, std::string::npos) << line;
    times[std::stoi(line.substr(at + 6))].push_back(time);
  }
  return times;
}

// The dump's invMat (file order right, up, at, pos: glm columns) with pads forced to 0,0,0,1,
// taken to glTF axes as C·M·C⁻¹ where C is RenderWare's basis to glTF times its unit scale.
glm::mat4 expectedInverseBind(const std::array<float, 16>& invMat) {
  glm::mat4 m(1.0f);
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) m[c][r] = invMat[static_cast<size_t>(c * 4 + r)];
  const glm::mat4 basis(basisToGltf(renderware::kRenderWareAxes) * renderware::kRenderWareAxes.metresPerUnit);
  return basis * m * glm::inverse(basis);
}

struct DumpCase {
  const char* dff;
  const char* dump;
  double weightTolerance;  // the dump's 6 digits, or the native formats' byte weights
};

const DumpCase kCases[] = {
    {"synthetic_skin_rw36003.dff", "synthetic_skin_rw36003.librw-dump.txt", 1e-6},
    {"synthetic_skin_rw33002.dff", "synthetic_skin_rw33002.librw-dump.txt", 1e-6},
    {"synthetic_skin_rw36003_xbox_native.dff", "synthetic_skin_rw36003_xbox_native.librw-uninstanced-dump.txt", 1.0 / 255.0},
    {"synthetic_skin_rw36003_wdgl_native.dff", "synthetic_skin_rw36003_wdgl_native.librw-uninstanced-dump.txt", 1.0 / 255.0},
};

void expectGlbMatchesDump(const DumpCase& c) {
  SCOPED_TRACE(c.dff);
  const std::string glb = convert(test::scratchDir(std::string("rw_gltf_") + stem(c.dff)), c.dff, {kAnm});
  ASSERT_FALSE(glb.empty());
  const test::ValidatorRun v = test::validateGltfFile(glb);
  EXPECT_TRUE(v.ok) << v.output;
  const tinygltf::Model m = test::loadGlbModel(glb);
  const test::Dump d = test::parseDump(rwSample(c.dump));
  ASSERT_EQ(d.nodes.size(), 6u);

  // Every frame is a node with the dump's parent; the skin's joints are the HAnim nodes in order.
  const std::vector<int> parent = nodeParents(m);
  for (const test::DumpFrame& f : d.frames) {
    const int n = nodeNamed(m, f.name);
    ASSERT_GE(n, 0) << f.name;
    const int p = parent[static_cast<size_t>(n)];
    if (f.parent < 0) {
      // A scene root, or under the node that lifts the ped onto the ground (README "Ground").
      if (p >= 0) EXPECT_TRUE(m.nodes[static_cast<size_t>(p)].extras.Has("rigportGroundLift")) << f.name;
    } else {
      ASSERT_GE(p, 0) << f.name;
      EXPECT_EQ(m.nodes[static_cast<size_t>(p)].name, d.frames[static_cast<size_t>(f.parent)].name) << f.name;
    }
  }
  ASSERT_EQ(m.skins.size(), 1u);
  const tinygltf::Skin& skin = m.skins[0];
  ASSERT_EQ(skin.joints.size(), d.nodes.size());
  for (size_t j = 0; j < d.nodes.size(); ++j) {
    const tinygltf::Node& node = m.nodes[static_cast<size_t>(skin.joints[j])];
    EXPECT_EQ(node.name, d.frames[static_cast<size_t>(d.nodes[j].frame)].name) << "joint " << j;
    ASSERT_TRUE(node.extras.Has("boneId")) << node.name;
    EXPECT_EQ(node.extras.Get("boneId").GetNumberAsInt(), d.nodes[j].id) << node.name;
  }

  // Inverse bind matrices (glTF stores them column-major, as glm).
  ASSERT_EQ(d.invMats.size(), d.nodes.size());
  const auto ibms = test::accessorFloats(m, skin.inverseBindMatrices);
  ASSERT_EQ(ibms.size(), d.nodes.size());
  for (size_t j = 0; j < ibms.size(); ++j) {
    const glm::mat4 expected = expectedInverseBind(d.invMats[j]);
    for (int k = 0; k < 16; ++k) EXPECT_NEAR(ibms[j][static_cast<size_t>(k)], expected[k / 4][k % 4], 1e-5) << "joint " << j << " m" << k;
  }

  // Per-vertex influences, order-independent (JOINTS_0 values index skin.joints = node order).
  ASSERT_EQ(m.meshes.size(), 1u);
  ASSERT_EQ(m.meshes[0].primitives.size(), 1u);
  const auto& attributes = m.meshes[0].primitives[0].attributes;
  ASSERT_TRUE(attributes.count("JOINTS_0") && attributes.count("WEIGHTS_0"));
  EXPECT_EQ(attributes.count("JOINTS_1"), 0u);  // the samples have at most 4 influences
  const auto joints = test::accessorFloats(m, attributes.at("JOINTS_0"));
  const auto weights = test::accessorFloats(m, attributes.at("WEIGHTS_0"));
  ASSERT_EQ(joints.size(), d.vertices.size());
  ASSERT_EQ(weights.size(), d.vertices.size());
  for (size_t i = 0; i < d.vertices.size(); ++i) {
    Weights got;
    for (size_t k = 0; k < 4; ++k) got[static_cast<int>(joints[i][k])] += weights[i][k];
    got = normalised(got);
    const Weights expected = dumpWeights(d.vertices[i]);
    ASSERT_EQ(got.size(), expected.size()) << "vertex " << i;
    for (const auto& [joint, weight] : expected) {
      ASSERT_EQ(got.count(joint), 1u) << "vertex " << i << " lacks joint " << joint;
      EXPECT_NEAR(got[joint], weight, c.weightTolerance) << "vertex " << i << " joint " << joint;
    }
  }

  // One animation: a translation and a rotation channel per node with the .anm's key times.
  const std::map<int, std::vector<double>> keyTimes = anmKeyTimes(rwSample(kAnm + ".dump.txt"));
  ASSERT_EQ(keyTimes.size(), d.nodes.size());
  ASSERT_EQ(m.animations.size(), 1u);
  const tinygltf::Animation& anim = m.animations[0];
  EXPECT_EQ(anim.channels.size(), 2 * d.nodes.size());
  for (size_t j = 0; j < d.nodes.size(); ++j) {
    std::set<std::string> paths;
    for (const tinygltf::AnimationChannel& ch : anim.channels) {
      if (ch.target_node != skin.joints[j]) continue;
      paths.insert(ch.target_path);
      const auto input = test::accessorFloats(m, anim.samplers[static_cast<size_t>(ch.sampler)].input);
      const std::vector<double>& times = keyTimes.at(static_cast<int>(j));
      ASSERT_EQ(input.size(), times.size()) << "joint " << j << " " << ch.target_path;
      for (size_t k = 0; k < times.size(); ++k) EXPECT_NEAR(input[k][0], times[k], 1e-6) << "joint " << j << " key " << k;
    }
    EXPECT_EQ(paths, (std::set<std::string>{"rotation", "translation"})) << "joint " << j;
  }
}

}  // namespace

TEST(RenderwareGltf, NewLayoutSampleConvertsToAGlbMatchingTheDump) { expectGlbMatchesDump(kCases[0]); }
TEST(RenderwareGltf, OldLayoutSampleConvertsToAGlbMatchingTheDump) { expectGlbMatchesDump(kCases[1]); }
TEST(RenderwareGltf, XboxNativeSampleConvertsToAGlbMatchingTheDump) { expectGlbMatchesDump(kCases[2]); }
TEST(RenderwareGltf, WdglNativeSampleConvertsToAGlbMatchingTheDump) { expectGlbMatchesDump(kCases[3]); }

TEST(RenderwareGltf, IfpPackagesBecomeAnimationsOfOneGlb) {
  const std::vector<std::string> packages = {"synthetic_anims_anpk.ifp", "synthetic_anims_anp3.ifp"};
  const std::string glb = convert(test::scratchDir("rw_gltf_ifp"), "synthetic_skin_rw36003.dff", packages);
  ASSERT_FALSE(glb.empty());
  const test::ValidatorRun v = test::validateGltfFile(glb);
  EXPECT_TRUE(v.ok) << v.output;
  const tinygltf::Model m = test::loadGlbModel(glb);
  EXPECT_EQ(m.skins.size(), 1u);
  // Expected: each package's animations in file order, each animating the nodes its tracks name
  // with that track's key count (io_scene_gta_ifp's reading, *.expected.json).
  std::vector<nlohmann::json> expected;
  for (const std::string& p : packages) {
    std::ifstream in(rwSample(stem(p) + ".expected.json"));
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << p;
    for (const nlohmann::json& a : j["animations"]) expected.push_back(a);
  }
  ASSERT_EQ(expected.size(), 4u);
  ASSERT_EQ(m.animations.size(), expected.size());
  for (size_t a = 0; a < expected.size(); ++a) {
    const tinygltf::Animation& anim = m.animations[a];
    EXPECT_EQ(anim.name, expected[a]["name"].get<std::string>());
    std::map<std::string, size_t> rotationKeys;
    for (const tinygltf::AnimationChannel& ch : anim.channels) {
      if (ch.target_path != "rotation") continue;
      rotationKeys[m.nodes[static_cast<size_t>(ch.target_node)].name] =
          test::accessorFloats(m, anim.samplers[static_cast<size_t>(ch.sampler)].input).size();
    }
    std::map<std::string, size_t> want;
    for (const nlohmann::json& track : expected[a]["bones"]) want[track["name"].get<std::string>()] = track["keys"].size();
    EXPECT_EQ(rotationKeys, want) << anim.name;
  }
}

TEST(RenderwareGltf, BlenderImportsTheVertexGroupsBonesAndKeyframes) {
  const std::string dir = test::scratchDir("rw_gltf_blender");
  const std::string glb = convert(dir, "synthetic_skin_rw36003.dff", {kAnm});
  ASSERT_FALSE(glb.empty());
  const test::Dump d = test::parseDump(rwSample("synthetic_skin_rw36003.librw-dump.txt"));
  const test::BlenderRun run = test::inspectWithBlender(glb, dir + "/report.json");
  ASSERT_TRUE(run.ok) << run.output;
  const nlohmann::json& report = run.report;
  auto nodeName = [&](int node) { return d.frames[static_cast<size_t>(d.nodes[static_cast<size_t>(node)].frame)].name; };

  // The non-joint root frame becomes the armature object; the six HAnim nodes become its bones,
  // parented as their frames (Root's parent frame is that object, so Root has no parent bone).
  ASSERT_EQ(report["armatures"].size(), 1u);
  EXPECT_EQ(report["armatures"][0]["name"], d.frames[0].name);
  std::map<std::string, std::string> parentOf;
  for (const auto& b : report["armatures"][0]["bones"]) parentOf[b["name"]] = b["parent"].is_null() ? "" : b["parent"].get<std::string>();
  std::set<int> jointFrames;
  for (const test::DumpNode& n : d.nodes) jointFrames.insert(n.frame);
  std::map<std::string, std::string> expectedParents;
  for (const test::DumpNode& n : d.nodes) {
    const test::DumpFrame& f = d.frames[static_cast<size_t>(n.frame)];
    expectedParents[f.name] = jointFrames.count(f.parent) ? d.frames[static_cast<size_t>(f.parent)].name : "";
  }
  EXPECT_EQ(parentOf, expectedParents);

  // Vertex groups. Blender may reorder vertices, so each is matched to the one exported vertex at
  // its position (glTF (x, y, z) is Blender (x, -z, y); this sample's positions are distinct). Its
  // importer keeps only vertices that a triangle uses: the sample's two leg vertices (12, 13) are
  // in no triangle, so exactly the indexed vertices must arrive.
  const tinygltf::Model m = test::loadGlbModel(glb);
  const tinygltf::Primitive& primitive = m.meshes.at(0).primitives.at(0);
  const auto positions = test::accessorFloats(m, primitive.attributes.at("POSITION"));
  ASSERT_EQ(positions.size(), d.vertices.size());
  std::vector<bool> indexed(positions.size(), false);
  for (const auto& i : test::accessorFloats(m, primitive.indices)) indexed.at(static_cast<size_t>(i[0])) = true;
  ASSERT_EQ(report["meshes"].size(), 1u);
  const nlohmann::json& mesh = report["meshes"][0];
  std::vector<bool> matched(positions.size(), false);
  for (size_t bv = 0; bv < mesh["positions"].size(); ++bv) {
    const auto& p = mesh["positions"][bv];
    const glm::dvec3 gltf(p[0].get<double>(), p[2].get<double>(), -p[1].get<double>());
    const nlohmann::json& got = mesh["weights"][bv];
    size_t matches = 0;
    for (size_t v = 0; v < positions.size(); ++v) {
      if (glm::distance(glm::dvec3(positions[v][0], positions[v][1], positions[v][2]), gltf) > 1e-4) continue;
      ++matches;
      matched[v] = true;
      const Weights expected = dumpWeights(d.vertices[v]);
      EXPECT_EQ(got.size(), expected.size()) << "vertex " << v << ": " << got.dump();
      for (const auto& [node, weight] : expected) {
        ASSERT_TRUE(got.contains(nodeName(node))) << "vertex " << v << " lacks group " << nodeName(node) << ": " << got.dump();
        EXPECT_NEAR(got[nodeName(node)].get<double>(), weight, 1e-4) << "vertex " << v << " group " << nodeName(node);
      }
    }
    EXPECT_EQ(matches, 1u) << "Blender vertex " << bv << " matches " << matches << " exported positions";
  }
  EXPECT_EQ(matched, indexed);

  // One action with location and quaternion fcurves on every bone, each with the node's key count.
  const std::map<int, std::vector<double>> keyTimes = anmKeyTimes(rwSample(kAnm + ".dump.txt"));
  ASSERT_EQ(report["actions"].size(), 1u);
  std::map<std::string, int> curves;
  for (const auto& fc : report["actions"][0]["fcurves"]) {
    const std::string path = fc["data_path"];
    ++curves[path];
    for (size_t j = 0; j < d.nodes.size(); ++j) {
      if (path.find("\"" + nodeName(static_cast<int>(j)) + "\"") != std::string::npos) {
        EXPECT_EQ(fc["keyframes"].get<size_t>(), keyTimes.at(static_cast<int>(j)).size()) << path;
      }
    }
  }
  std::map<std::string, int> expectedCurves;
  for (size_t j = 0; j < d.nodes.size(); ++j) {
    const std::string bone = "pose.bones[\"" + nodeName(static_cast<int>(j)) + "\"].";
    expectedCurves[bone + "location"] = 3;
    expectedCurves[bone + "rotation_quaternion"] = 4;
  }
  EXPECT_EQ(curves, expectedCurves);
}
