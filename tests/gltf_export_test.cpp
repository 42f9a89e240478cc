// glTF export: every rig built here is exported as .glb and as .gltf + .bin, read back with
// tinygltf (an independent reader) and checked against the model; and every file must pass the
// Khronos glTF-Validator with 0 errors and 0 warnings (format note gltf_ecosystem.md §1, §5.10).
// Tolerances: IBMs 1e-5 (float32 of a double-free inverse), weights 1e-6 (float32 rounding of a
// double ratio), weight sums the validator's own 2e-7 × non-zero weights (§1.2).
#include <gtest/gtest.h>

#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <type_traits>
#include <utility>

#include <glm/gtc/matrix_transform.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/axes.hpp"
#include "core/repair.hpp"
#include "core/validate.hpp"
#include "demo/character.hpp"
#include "export/gltf.hpp"
#include "export/gltf_influences.hpp"
#include "export/gltf_vertex_passes.hpp"
#include "support/gltf_pose.hpp"
#include "support/gltf_validator.hpp"
#include "support/test_support.hpp"

namespace rigport {
namespace {

using test::scratchDir;

glm::quat axisAngle(float degrees, glm::vec3 axis) { return glm::angleAxis(glm::radians(degrees), glm::normalize(axis)); }

void writeFile(const std::string& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  ASSERT_TRUE(out.good()) << path;
}

struct Exported {
  tinygltf::Model glb;
  tinygltf::Model gltf;
  nlohmann::json json;  // the .gltf JSON, for extras
};

// Exports both forms into scratchDir(name), reads both back with tinygltf and validates both.
Exported exportAndCheck(const Rig& rig, const std::string& name, const GltfOptions& options = {}) {
  Exported e;
  const std::string dir = scratchDir(name);
  auto glb = exportGlb(rig, options);
  EXPECT_TRUE(glb.ok()) << (glb.ok() ? "" : glb.error().describe());
  auto files = exportGltf(rig, name + ".bin", options);
  EXPECT_TRUE(files.ok()) << (files.ok() ? "" : files.error().describe());
  if (!glb.ok() || !files.ok()) return e;
  const std::string glbPath = dir + "/" + name + ".glb";
  const std::string gltfPath = dir + "/" + name + ".gltf";
  writeFile(glbPath, glb->data(), glb->size());
  writeFile(gltfPath, files->json.data(), files->json.size());
  writeFile(dir + "/" + name + ".bin", files->bin.data(), files->bin.size());
  e.json = nlohmann::json::parse(files->json);

  tinygltf::TinyGLTF loader;
  std::string err, warn;
  EXPECT_TRUE(loader.LoadBinaryFromFile(&e.glb, &err, &warn, glbPath)) << err;
  EXPECT_TRUE(loader.LoadASCIIFromFile(&e.gltf, &err, &warn, gltfPath)) << err;
  EXPECT_EQ(e.glb.buffers.size(), e.gltf.buffers.size());
  if (!e.glb.buffers.empty() && !e.gltf.buffers.empty()) EXPECT_EQ(e.glb.buffers[0].data, e.gltf.buffers[0].data);

  for (const std::string& path : {glbPath, gltfPath}) {
    const test::ValidatorRun run = test::validateGltfFile(path);
    EXPECT_TRUE(run.ok) << run.output;
  }
  return e;
}

// All components of an accessor as doubles (floats are exact in a double).
std::vector<double> components(const tinygltf::Model& m, int index) {
  const tinygltf::Accessor& a = m.accessors.at(static_cast<size_t>(index));
  const tinygltf::BufferView& v = m.bufferViews.at(static_cast<size_t>(a.bufferView));
  EXPECT_EQ(v.byteStride, 0u);
  EXPECT_EQ((v.byteOffset + a.byteOffset) % 4, 0u);
  const uint8_t* p = m.buffers.at(static_cast<size_t>(v.buffer)).data.data() + v.byteOffset + a.byteOffset;
  const size_t n = a.count * static_cast<size_t>(tinygltf::GetNumComponentsInType(static_cast<uint32_t>(a.type)));
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) {
    switch (a.componentType) {
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: out[i] = p[i]; break;
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: { uint16_t x; std::memcpy(&x, p + 2 * i, 2); out[i] = x; break; }
      case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: { uint32_t x; std::memcpy(&x, p + 4 * i, 4); out[i] = x; break; }
      case TINYGLTF_COMPONENT_TYPE_FLOAT: { float x; std::memcpy(&x, p + 4 * i, 4); out[i] = x; break; }
      default: ADD_FAILURE() << "unexpected component type " << a.componentType;
    }
  }
  return out;
}

int nodeNamed(const tinygltf::Model& m, const std::string& name) {
  for (size_t i = 0; i < m.nodes.size(); ++i)
    if (m.nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

int parentOf(const tinygltf::Model& m, int node) {
  for (size_t i = 0; i < m.nodes.size(); ++i)
    for (int c : m.nodes[i].children)
      if (c == node) return static_cast<int>(i);
  return -1;
}

// The reference for what a vertex's influences must become (written independently of the
// exporter's code): joints merged, zeros dropped, largest first (ties by joint), at most `slots`,
// renormalised in double.
std::vector<std::pair<uint32_t, double>> expectedInfluences(const Mesh& mesh, size_t v, const std::vector<uint32_t>& joints,
                                                            size_t slots, uint32_t rootJoint) {
  std::map<uint32_t, double> byJoint;
  for (uint32_t i = mesh.influenceOffsets[v]; i < mesh.influenceOffsets[v + 1]; ++i) {
    const auto it = std::find(joints.begin(), joints.end(), mesh.influences[i].bone);
    if (mesh.influences[i].weight > 0) byJoint[static_cast<uint32_t>(it - joints.begin())] += mesh.influences[i].weight;
  }
  std::vector<std::pair<uint32_t, double>> out(byJoint.begin(), byJoint.end());
  if (out.empty()) return {{rootJoint, 1.0}};
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (out.size() > slots) out.resize(slots);
  double sum = 0;
  for (const auto& p : out) sum += p.second;
  for (auto& p : out) p.second /= sum;
  return out;
}

// Checks JOINTS_n/WEIGHTS_n of the mesh's primitive against expectedInfluences for every vertex.
void checkInfluences(const tinygltf::Model& m, int meshIndex, const Mesh& mesh, const std::vector<uint32_t>& joints,
                     size_t expectedSets, uint32_t rootJoint) {
  const tinygltf::Primitive& prim = m.meshes.at(static_cast<size_t>(meshIndex)).primitives.at(0);
  std::vector<std::vector<double>> js, ws;
  for (size_t s = 0; prim.attributes.count("JOINTS_" + std::to_string(s)) != 0; ++s) {
    const int ja = prim.attributes.at("JOINTS_" + std::to_string(s));
    const int wa = prim.attributes.at("WEIGHTS_" + std::to_string(s));
    EXPECT_EQ(m.accessors[static_cast<size_t>(ja)].componentType,
              joints.size() > 256 ? TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT : TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE);
    EXPECT_EQ(m.accessors[static_cast<size_t>(wa)].componentType, TINYGLTF_COMPONENT_TYPE_FLOAT);
    js.push_back(components(m, ja));
    ws.push_back(components(m, wa));
  }
  ASSERT_EQ(js.size(), expectedSets);
  for (size_t v = 0; v < mesh.vertexCount(); ++v) {
    const auto expected = expectedInfluences(mesh, v, joints, expectedSets * 4, rootJoint);
    std::vector<std::pair<uint32_t, double>> got;
    float sum = 0.0f;  // the validator's order: component c of every set, then c + 1 (§1.2)
    size_t nonZero = 0;
    for (size_t c = 0; c < 4; ++c) {
      for (size_t s = 0; s < js.size(); ++s) {
        const double w = ws[s][v * 4 + c];
        if (w != 0) {
          sum += static_cast<float>(w);
          ++nonZero;
        } else {
          EXPECT_EQ(js[s][v * 4 + c], 0) << "vertex " << v << ": a zero-weight slot must use joint 0";
        }
      }
    }
    for (size_t k = 0; k < js.size() * 4; ++k) {
      const double w = ws[k / 4][v * 4 + k % 4];
      if (w != 0) got.emplace_back(static_cast<uint32_t>(js[k / 4][v * 4 + k % 4]), w);
    }
    ASSERT_EQ(got.size(), expected.size()) << "vertex " << v;
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_EQ(got[k].first, expected[k].first) << "vertex " << v << " slot " << k;
      EXPECT_NEAR(got[k].second, expected[k].second, 1e-6) << "vertex " << v << " slot " << k;
    }
    EXPECT_LE(std::fabs(sum - 1.0f), 2e-7 * static_cast<double>(nonZero)) << "vertex " << v;
  }
}

void checkInverseBinds(const tinygltf::Model& m, const Rig& rig) {
  ASSERT_EQ(m.skins.size(), 1u);
  const tinygltf::Skin& skin = m.skins[0];
  const std::vector<uint32_t> joints = rig.skeleton.jointList();
  ASSERT_EQ(skin.joints.size(), joints.size());
  const std::vector<double> ibm = components(m, skin.inverseBindMatrices);
  ASSERT_EQ(ibm.size(), joints.size() * 16);
  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  for (size_t j = 0; j < joints.size(); ++j) {
    const Bone& bone = rig.skeleton.bones[joints[j]];
    EXPECT_EQ(skin.joints[j], static_cast<int>(joints[j])) << "bone i is node i";
    const glm::mat4 expected = bone.inverseBind ? *bone.inverseBind : glm::inverse(world[joints[j]]);
    for (int c = 0; c < 4; ++c) {
      for (int r = 0; r < 3; ++r) EXPECT_NEAR(ibm[j * 16 + c * 4 + r], expected[c][r], 1e-5) << "joint " << j << " [" << c << "][" << r << "]";
    }
    // The last row is exact (ACCESSOR_INVALID_IBM has no tolerance).
    EXPECT_EQ(ibm[j * 16 + 3], 0.0);
    EXPECT_EQ(ibm[j * 16 + 7], 0.0);
    EXPECT_EQ(ibm[j * 16 + 11], 0.0);
    EXPECT_EQ(ibm[j * 16 + 15], 1.0);
  }
}

// root -> spine -> {head, arm, arm (a second bone with the same name)}, plus an unnamed bone under
// head; bone 2 has an explicit inverse bind, the others derive theirs.
Skeleton branchingSkeleton() {
  Skeleton s;
  auto add = [&](std::string name, int32_t parent, glm::vec3 t, glm::quat r) {
    Bone b;
    b.name = std::move(name);
    b.parent = parent;
    b.translation = t;
    b.rotation = r;
    s.bones.push_back(std::move(b));
  };
  add("root", -1, {0, 1, 0}, axisAngle(90, {0, 1, 0}));
  add("spine", 0, {0, 0.5f, 0}, axisAngle(10, {1, 0, 0}));
  add("head", 1, {0, 0.6f, 0}, glm::quat(1, 0, 0, 0));
  add("arm", 1, {0.3f, 0.4f, 0}, axisAngle(-80, {0, 0, 1}));
  add("arm", 1, {-0.3f, 0.4f, 0}, axisAngle(80, {0, 0, 1}));
  add("", 2, {0, 0.2f, 0.1f}, glm::quat(1, 0, 0, 0));
  s.bones[1].scale = glm::vec3(1.0f, 1.2f, 1.0f);
  s.bones[2].inverseBind = glm::inverse(s.worldBindMatrices()[2]);
  s.bones[3].id = 42;
  s.bones[3].nameHash = 0xDEADBEEF;
  s.bones[3].nameHashKind = HashKind::Fnv1_32Lower;
  return s;
}

// A 4×2 vertex grid with varied influences: vertex 0 has 6 distinct bones (one listed twice, one
// also with a zero weight), vertex 1 none, vertex 5 has 5, vertex 3's weights sum to 0.9.
Mesh skinnedGrid(size_t boneCount) {
  Mesh m;
  m.name = "Body";
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 4; ++x) {
      m.positions.push_back({x * 0.5f - 0.75f, y * 1.5f, 0.1f * x});
      m.normals.push_back({0, 0, x == 3 ? 2.0f : 1.0f});  // one non-unit normal: must come out unit
      m.uvs.push_back({x / 3.0f, static_cast<float>(y)});
    }
  m.indices = {0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6};
  const std::vector<std::vector<Influence>> perVertex = {
      {{0, 0.1f}, {1, 0.2f}, {2, 0.15f}, {3, 0.3f}, {1, 0.05f}, {4, 0.0f}, {5, 0.2f}, {4, 0.1f}},
      {},                                                                           // no influences
      {{1, 1.0f}},
      {{2, 0.3f}, {3, 0.3f}, {4, 0.3f}},  // sums to 0.9: renormalised
      {{0, 0.5f}, {1, 0.5f}},
      {{3, 0.7f}, {4, 0.2f}, {5, 0.1f}, {0, 0.05f}, {1, 0.03f}},  // 5 influences
      {{4, 2.0f}, {5, 1.0f}},
      {{static_cast<uint32_t>(boneCount - 1), 1.0f}},
  };
  m.influenceOffsets.push_back(0);
  for (const auto& v : perVertex) {
    m.influences.insert(m.influences.end(), v.begin(), v.end());
    m.influenceOffsets.push_back(static_cast<uint32_t>(m.influences.size()));
  }
  return m;
}

Rig branchingRig() {
  Rig rig;
  rig.name = "Branching";
  rig.skeleton = branchingSkeleton();
  rig.meshes.push_back(skinnedGrid(rig.skeleton.bones.size()));
  rig.provenance.format = "test";
  rig.provenance.file = "branching.test";
  rig.provenance.warn("test-warning", "carried to asset.extras");
  return rig;
}

TEST(GltfExport, BranchingSkeletonBecomesUniquelyNamedTrsNodesWithParents) {
  const Rig rig = branchingRig();
  const Exported e = exportAndCheck(rig, "branching");
  const tinygltf::Model& m = e.glb;
  ASSERT_EQ(m.nodes.size(), rig.skeleton.bones.size() + 1);  // bones + the mesh node
  std::vector<std::string> names;
  for (const auto& n : m.nodes) {
    EXPECT_FALSE(n.name.empty());
    EXPECT_TRUE(n.matrix.empty()) << n.name;
    names.push_back(n.name);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end()) << "node names must be unique";
  EXPECT_EQ(m.nodes[3].name, "arm");
  EXPECT_EQ(m.nodes[4].name, "arm_2");
  EXPECT_EQ(e.json["nodes"][4]["extras"]["originalName"], "arm");
  EXPECT_EQ(m.nodes[5].name, "bone_5");
  EXPECT_EQ(e.json["nodes"][3]["extras"]["boneId"], 42);
  EXPECT_EQ(e.json["nodes"][3]["extras"]["nameHash"], 0xDEADBEEFu);
  EXPECT_EQ(e.json["nodes"][3]["extras"]["nameHashKind"], "fnv1-32-lower") << "a glTF read back knows which function made it";
  for (size_t i = 0; i < rig.skeleton.bones.size(); ++i) {
    const Bone& b = rig.skeleton.bones[i];
    EXPECT_EQ(parentOf(m, static_cast<int>(i)), b.parent) << i;
    const auto& n = m.nodes[i];
    const glm::vec3 t = n.translation.empty() ? glm::vec3(0) : glm::vec3(n.translation[0], n.translation[1], n.translation[2]);
    EXPECT_NEAR(glm::distance(t, b.translation), 0, 1e-6) << i;
    const glm::vec4 r = n.rotation.empty() ? glm::vec4(0, 0, 0, 1) : glm::vec4(n.rotation[0], n.rotation[1], n.rotation[2], n.rotation[3]);
    EXPECT_NEAR(glm::distance(r, glm::vec4(b.rotation.x, b.rotation.y, b.rotation.z, b.rotation.w)), 0, 1e-6) << i;
    const glm::vec3 s = n.scale.empty() ? glm::vec3(1) : glm::vec3(n.scale[0], n.scale[1], n.scale[2]);
    EXPECT_NEAR(glm::distance(s, b.scale), 0, 1e-6) << i;
  }
  // The skinned mesh node: scene root, no transform, the skin.
  const int meshNode = nodeNamed(m, "Body");
  ASSERT_GE(meshNode, 0);
  EXPECT_EQ(parentOf(m, meshNode), -1);
  EXPECT_EQ(m.nodes[static_cast<size_t>(meshNode)].skin, 0);
  EXPECT_TRUE(m.nodes[static_cast<size_t>(meshNode)].translation.empty());
  EXPECT_EQ(m.scenes.at(0).nodes, (std::vector<int>{0, meshNode}));
  EXPECT_EQ(m.skins[0].skeleton, 0);
  EXPECT_EQ(e.json["asset"]["extras"]["format"], "test");
  EXPECT_EQ(e.json["asset"]["extras"]["warnings"][0]["code"], "test-warning");
  EXPECT_EQ(e.json["asset"]["generator"], "rigport");
}

TEST(GltfExport, InverseBindMatricesMatchTheModelWithAnExactLastRow) {
  const Rig rig = branchingRig();
  const Exported e = exportAndCheck(rig, "ibm");
  checkInverseBinds(e.glb, rig);
  checkInverseBinds(e.gltf, rig);
}

TEST(GltfExport, InfluencesAreMergedSortedCutAndNormalisedToTheValidatorsSum) {
  const Rig rig = branchingRig();
  const Exported e = exportAndCheck(rig, "influences");
  const std::vector<uint32_t> joints = rig.skeleton.jointList();
  // Vertex 0 has 6 distinct non-zero bones: two sets. The root joint (0) takes vertex 1.
  checkInfluences(e.glb, 0, rig.meshes[0], joints, 2, 0);
  EXPECT_EQ(e.json["meshes"][0]["extras"]["verticesWithoutInfluences"], 1);
  const tinygltf::Primitive& prim = e.glb.meshes[0].primitives[0];
  // POSITION bounds read back, narrowed to float, as the float32 values written (their text is
  // the shortest that does: 0.3, which as a double is not 0.3f widened); normals come out unit.
  const tinygltf::Accessor& pos = e.glb.accessors[static_cast<size_t>(prim.attributes.at("POSITION"))];
  const auto narrowed = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
  EXPECT_EQ(narrowed(pos.minValues), (std::vector<float>{-0.75f, 0.0f, 0.0f}));
  EXPECT_EQ(narrowed(pos.maxValues), (std::vector<float>{0.75f, 1.5f, 0.1f * 3}));
  const std::vector<double> normals = components(e.glb, prim.attributes.at("NORMAL"));
  for (size_t v = 0; v < normals.size() / 3; ++v) EXPECT_NEAR(normals[v * 3 + 2], 1.0, 1e-7) << v;
  EXPECT_EQ(components(e.glb, prim.attributes.at("TEXCOORD_0"))[2], static_cast<double>(1 / 3.0f));
  const tinygltf::Accessor& idx = e.glb.accessors[static_cast<size_t>(prim.indices)];
  EXPECT_EQ(idx.componentType, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT);
  const std::vector<double> indices = components(e.glb, prim.indices);
  EXPECT_EQ(std::vector<uint32_t>(indices.begin(), indices.end()), rig.meshes[0].indices);
}

TEST(GltfExport, WithoutEightInfluencesTheFourLargestAreKept) {
  const Rig rig = branchingRig();
  GltfOptions options;
  options.allowEightInfluences = false;
  const Exported e = exportAndCheck(rig, "four", options);
  checkInfluences(e.glb, 0, rig.meshes[0], rig.skeleton.jointList(), 1, 0);
  EXPECT_EQ(e.json["meshes"][0]["extras"]["verticesWithDroppedInfluences"], 2);  // vertices 0 and 5
}

TEST(GltfExport, RandomInfluencesAlwaysPassTheValidatorsSumCheck) {
  // Many vertices with 1-8 random weights exercise the float32 renormalisation (the validator also
  // checks every one of them).
  Rig rig;
  rig.skeleton = branchingSkeleton();
  for (int i = 0; i < 6; ++i) {
    Bone b;
    b.name = "extra" + std::to_string(i);
    b.parent = i;
    b.translation = {0, 0.1f, 0};
    rig.skeleton.bones.push_back(b);
  }
  Mesh mesh;
  mesh.name = "random";
  uint32_t state = 12345;
  auto next = [&] { state = state * 1664525u + 1013904223u; return state >> 8; };
  mesh.influenceOffsets.push_back(0);
  for (int v = 0; v < 3000; ++v) {
    mesh.positions.push_back({static_cast<float>(v % 50), static_cast<float>(v / 50), 0});
    const uint32_t count = 1 + next() % 8;
    for (uint32_t k = 0; k < count; ++k) {
      mesh.influences.push_back({next() % 12, static_cast<float>(next() % 100000) / 7919.0f});
    }
    mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
  }
  rig.meshes.push_back(mesh);
  const Exported e = exportAndCheck(rig, "random");
  checkInfluences(e.glb, 0, rig.meshes[0], rig.skeleton.jointList(), 2, 0);
  EXPECT_EQ(e.glb.meshes[0].primitives[0].mode, TINYGLTF_MODE_POINTS);  // no indices: points
}

// normaliseFour must write bit for bit what normalise() writes, for every vertex it takes, and
// refuse every vertex it cannot take. The vertices mix what real files hold (4 weights, repeated
// bones, zero and -0 weights, equal weights, weights too small to survive the division) with what
// only damaged ones do (NaN, infinity, negative weights, bones outside the joint list).
TEST(GltfExport, TheFourInfluenceFastPathWritesWhatNormaliseWrites) {
  const std::vector<int32_t> jointOfBone = {0, 1, 2, 3, -1, 4, 5, 300};  // bone 4 is not a joint
  uint32_t state = 2024;
  auto next = [&] { state = state * 1664525u + 1013904223u; return state >> 8; };
  const float special[] = {0.0f, -0.0f, 1.0f, 0.5f, 0.25f, 1e-30f, 1e-45f, 3e38f, -0.5f,
                           std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()};
  size_t taken = 0, refused = 0;
  for (size_t sets = 1; sets <= 2; ++sets) {
    gltf::InfluenceNormaliser normaliser(jointOfBone, 0, sets);
    for (int v = 0; v < 200000; ++v) {
      Influence in[6];
      const size_t count = next() % 7;
      for (size_t k = 0; k < count; ++k) {
        // Mostly valid bones and plain weights; now and then a special one or a repeated weight.
        in[k].bone = next() % 16 == 0 ? 4 : next() % 7;
        if (next() % 8 == 0) in[k].bone = 7;
        const uint32_t pick = next() % 16;
        in[k].weight = pick < 2 ? special[next() % std::size(special)]
                       : pick < 4 && k > 0 ? in[k - 1].weight
                                           : static_cast<float>(next() % 100000) / 7919.0f;
      }
      uint32_t fastJoint[4] = {99, 99, 99, 99};
      float fastWeight[4] = {-7.0f, -7.0f, -7.0f, -7.0f};
      const bool fast = normaliser.normaliseFour(in, in + count, fastJoint, fastWeight);
      gltf::VertexInfluences slow;
      size_t bad = 0;
      bool truncated = false;
      const auto outcome = normaliser.normalise(in, in + count, slow, bad, truncated);
      if (!fast) {
        ++refused;
        EXPECT_EQ(fastJoint[0], 99u);  // nothing written
        continue;
      }
      ++taken;
      ASSERT_EQ(sets, 1u);
      ASSERT_EQ(outcome, gltf::InfluenceNormaliser::Outcome::Ok) << v;
      ASSERT_FALSE(truncated);
      for (size_t c = 0; c < 4; ++c) {
        ASSERT_EQ(fastJoint[c], slow.joint[c]) << "vertex " << v << " slot " << c;
        uint32_t a, b;
        std::memcpy(&a, &fastWeight[c], 4);
        std::memcpy(&b, &slow.weight[c], 4);
        ASSERT_EQ(a, b) << "vertex " << v << " slot " << c << ": " << fastWeight[c] << " vs " << slow.weight[c];
      }
    }
  }
  // Both paths are exercised: most one-set vertices are the usual kind, and two sets never are.
  EXPECT_GT(taken, 40000u);
  EXPECT_GT(refused, 200000u);
}

// The lanes (four in SSE2, eight in AVX2) must take, lane by lane, exactly the vertices
// normaliseFour takes, and write for them what normaliseFour writes.
// The vertices are packed as a mesh packs them (0 to 6 influences each, back to back), so lanes
// also load the slots of the next vertex, which they must ignore.
void checkLanes(size_t width) {
  const std::vector<int32_t> jointOfBone = {3, 0, 5, 1, 2, 4, -1, 6, 7, 300};  // bone 6 is not a joint
  uint32_t state = 77;
  auto next = [&] { state = state * 1664525u + 1013904223u; return state >> 8; };
  const float special[] = {0.0f, -0.0f, 1.0f, 0.5f, 0.25f, 1e-30f, 1e-45f, 3e38f, -0.5f,
                           std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()};
  std::vector<Influence> inf;
  std::vector<uint32_t> off = {0};
  for (int v = 0; v < 400000; ++v) {
    // Mostly the usual vertex (four plain weights on bones 0-5), now and then anything else,
    // including bones past the joint map and bones of 2^31 and more (negative as 32-bit lanes).
    const bool plain = next() % 4 != 0;
    const size_t count = plain ? 4 : next() % 7;
    const uint32_t first = next() % 6;
    for (size_t k = 0; k < count; ++k) {
      Influence in{plain ? (first + static_cast<uint32_t>(k)) % 6 : next() % 10, static_cast<float>(next() % 100000) / 7919.0f};
      const uint32_t pick = next() % 16;
      if (!plain && pick < 3) in.weight = special[next() % std::size(special)];
      if (pick == 3 && k > 0) in.weight = inf.back().weight;  // ties
      if (pick == 4 && k > 0) in.bone = inf.back().bone;      // a bone named twice
      if (!plain && pick == 5) in.bone = next() % 2 == 0 ? 0x80000000u + next() % 4 : 10 + next() % 1000;
      inf.push_back(in);
    }
    off.push_back(static_cast<uint32_t>(inf.size()));
  }
  gltf::InfluenceNormaliser normaliser(jointOfBone, 0, 1);
  auto lanes = [&](const uint32_t* o, uint32_t* j, float* w) {
    return width == 8 ? normaliser.normaliseEightByEight(inf.data(), o, j, w) : normaliser.normaliseFourByFour(inf.data(), o, j, w);
  };
  size_t taken = 0, left = 0;
  for (size_t v = 0; v + width < off.size(); v += width) {
    if (size_t{*std::max_element(&off[v], &off[v] + width)} + 4 > inf.size()) break;
    uint32_t laneJoint[32];
    float laneWeight[32];
    const unsigned taking = lanes(&off[v], laneJoint, laneWeight);
    for (size_t k = 0; k < width; ++k) {
      const Influence* begin = inf.data() + off[v + k];
      const Influence* end = inf.data() + off[v + k + 1];
      uint32_t joint[4];
      float weight[4];
      const bool one = normaliser.normaliseFour(begin, end, joint, weight);
      ASSERT_EQ((taking >> k & 1u) != 0, one) << "vertex " << v + k;
      if (!(taking >> k & 1u)) {
        ++left;
        continue;
      }
      ++taken;
      for (size_t c = 0; c < 4; ++c) {
        ASSERT_EQ(laneJoint[4 * k + c], joint[c]) << "vertex " << v + k << " slot " << c;
        uint32_t a, b;
        std::memcpy(&a, &laneWeight[4 * k + c], 4);
        std::memcpy(&b, &weight[c], 4);
        ASSERT_EQ(a, b) << "vertex " << v + k << " slot " << c;
      }
    }
  }
  EXPECT_GT(taken, 200000u);
  EXPECT_GT(left, 40000u);
  // Two sets are never taken.
  gltf::InfluenceNormaliser twoSets(jointOfBone, 0, 2);
  uint32_t j[32];
  float w[32];
  EXPECT_EQ(width == 8 ? twoSets.normaliseEightByEight(inf.data(), off.data(), j, w) : twoSets.normaliseFourByFour(inf.data(), off.data(), j, w), 0u);
}

TEST(GltfExport, TheFourVertexLanesWriteWhatTheOneVertexPathWrites) { checkLanes(4); }

TEST(GltfExport, TheEightVertexLanesWriteWhatTheOneVertexPathWrites) {
  if (!gltf::InfluenceNormaliser::eightLanes()) GTEST_SKIP() << "this CPU has no AVX2";
  checkLanes(8);
}

// The vertex passes in lanes must give bit for bit what the one-vertex loops give: the bounds as
// glm::min/max in vertex order (the sign of a zero bound is the first zero's), the normals as
// glm::length and a division, with +Y where that cannot be made unit.
TEST(GltfExport, TheVertexPassesInLanesGiveWhatTheOneVertexLoopsGive) {
  uint32_t state = 99;
  auto next = [&] { state = state * 1664525u + 1013904223u; return state >> 8; };
  const float special[] = {0.0f, -0.0f, 1e-45f, -1e-45f, 1e-20f, 3e38f, -3e38f, 1e19f, 1.0f, -1.0f,
                           std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()};
  auto bits = [](float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; };
  size_t replacedSeen = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const size_t n = trial < 2900 ? next() % 23 : 4000 + next() % 5;
    std::vector<glm::vec3> positions(n), normals(n);
    for (size_t v = 0; v < n; ++v) {
      for (int c = 0; c < 3; ++c) {
        const uint32_t pick = next() % 8;
        // Positions: finite only (the exporter refuses the others first); zeros of both signs often.
        positions[v][c] = pick == 0 ? 0.0f : pick == 1 ? -0.0f : pick == 2 ? special[next() % 10]
                                                                  : (static_cast<float>(next() % 20001) - 10000.0f) / 37.0f;
        normals[v][c] = pick < 2 ? special[next() % std::size(special)] : (static_cast<float>(next() % 2001) - 1000.0f) / 999.0f;
      }
    }
    glm::vec3 lo(std::numeric_limits<float>::max()), hi(-std::numeric_limits<float>::max());
    for (const glm::vec3& p : positions) {
      lo = glm::min(lo, p);
      hi = glm::max(hi, p);
    }
    const gltf::PositionBounds b = gltf::positionBounds(positions.data(), n);
    for (int c = 0; c < 3; ++c) {
      ASSERT_EQ(bits(b.lo[c]), bits(lo[c])) << "trial " << trial << " component " << c;
      ASSERT_EQ(bits(b.hi[c]), bits(hi[c])) << "trial " << trial << " component " << c;
    }
    ASSERT_TRUE(b.finite) << "trial " << trial;
    if (n > 0) {  // one infinite or NaN coordinate, in the lanes or the tail, is seen
      std::vector<glm::vec3> damaged = positions;
      damaged[next() % n][static_cast<int>(next() % 3)] =
          next() % 2 == 0 ? std::numeric_limits<float>::quiet_NaN() : -std::numeric_limits<float>::infinity();
      ASSERT_FALSE(gltf::positionBounds(damaged.data(), n).finite) << "trial " << trial;
    }
    std::vector<float> lanes(3 * n), expected(3 * n);
    uint64_t replaced = 0;
    for (size_t v = 0; v < n; ++v) {
      glm::vec3 nv = normals[v];
      const float len = glm::length(nv);
      if (std::isfinite(len) && len > 1e-12f) {
        nv /= len;
      } else {
        nv = glm::vec3(0.0f, 1.0f, 0.0f);
        ++replaced;
      }
      std::memcpy(&expected[3 * v], &nv, 12);
    }
    ASSERT_EQ(gltf::writeUnitNormals(normals.data(), n, lanes.data()), replaced) << "trial " << trial;
    for (size_t i = 0; i < 3 * n; ++i) ASSERT_EQ(bits(lanes[i]), bits(expected[i])) << "trial " << trial << " float " << i;
    // In place, as the exporter does with a rig of its own.
    std::vector<glm::vec3> own = normals;
    ASSERT_EQ(gltf::writeUnitNormals(own.data(), n, &own[0].x), replaced) << "trial " << trial;
    ASSERT_EQ(std::memcmp(own.data(), expected.data(), 12 * n), 0) << "trial " << trial;
    replacedSeen += replaced;
  }
  EXPECT_GT(replacedSeen, 500u);  // the +Y path is taken, in lanes and in the tail
}

// An exporter that owns its rig changes the vertices' axes inside its bounds and unit-normal passes
// (convertAxesLeavingVertices()): that must give bit for bit what convertAxes() and then the passes
// give, for every kind of axis change: a turn (Z up), a mirror (left-handed), a unit scale.
TEST(GltfExport, TheVertexPassesThatChangeAxesGiveWhatConvertAxesThenThePassesGive) {
  AxisSystem gta;
  gta.up = AxisSystem::Up::Z;
  gta.forward = AxisSystem::Axis::PosY;
  AxisSystem centimetres = gta;
  centimetres.metresPerUnit = 0.01f;
  AxisSystem mirrored;
  mirrored.rightHanded = false;
  mirrored.forward = AxisSystem::Axis::NegX;
  mirrored.metresPerUnit = 3.0f;
  uint32_t state = 7;
  auto next = [&] { state = state * 1664525u + 1013904223u; return state >> 8; };
  const float special[] = {0.0f, -0.0f, 1e-45f, -1e-45f, 1e-20f, 3e38f, -3e38f, 1e19f, 1.0f, -1.0f,
                           std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity()};
  auto bits = [](float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; };
  size_t mapped = 0;
  for (const AxisSystem& from : {gta, centimetres, mirrored}) {
    for (int trial = 0; trial < 600; ++trial) {
      const size_t n = trial < 580 ? next() % 23 : 4000 + next() % 5;
      Rig rig;
      rig.provenance.axes = from;
      Mesh mesh;
      mesh.positions.resize(n);
      mesh.normals.resize(n);
      for (size_t v = 0; v < n; ++v) {
        for (int c = 0; c < 3; ++c) {
          const uint32_t pick = next() % 8;
          // Positions: finite but for one trial in ten (the exporter refuses the others after the pass).
          const size_t specials = trial % 10 == 0 ? std::size(special) : 10;
          mesh.positions[v][c] = pick < 3 ? special[next() % specials] : (static_cast<float>(next() % 20001) - 10000.0f) / 37.0f;
          mesh.normals[v][c] = pick < 2 ? special[next() % std::size(special)] : (static_cast<float>(next() % 2001) - 1000.0f) / 999.0f;
        }
      }
      rig.meshes.push_back(mesh);
      Rig converted = rig;
      convertAxes(converted, AxisSystem{});
      const std::optional<VertexMap> map = convertAxesLeavingVertices(rig, AxisSystem{});
      ASSERT_TRUE(map.has_value());
      Mesh& own = rig.meshes[0];
      ASSERT_EQ(std::memcmp(own.positions.data(), mesh.positions.data(), 12 * n), 0) << "convertAxesLeavingVertices moved a vertex";
      ASSERT_EQ(std::memcmp(own.normals.data(), mesh.normals.data(), 12 * n), 0) << "convertAxesLeavingVertices turned a normal";
      const Mesh& expected = converted.meshes[0];
      const gltf::PositionBounds want = gltf::positionBounds(expected.positions.data(), n);
      const gltf::PositionBounds got = gltf::mapPositionBounds(own.positions.data(), own.positions.data(), n, *map);
      ASSERT_EQ(got.finite, want.finite) << "trial " << trial;
      for (size_t v = 0; v < n; ++v) {
        for (int c = 0; c < 3; ++c) {
          const float g = own.positions[v][c], w = expected.positions[v][c];
          // NaN payloads may differ with the order of an addition's operands; no NaN is exported.
          ASSERT_TRUE(bits(g) == bits(w) || (std::isnan(g) && std::isnan(w))) << "trial " << trial << " vertex " << v << " component " << c;
        }
      }
      for (int c = 0; want.finite && c < 3; ++c) {
        ASSERT_EQ(bits(got.lo[c]), bits(want.lo[c])) << "trial " << trial << " component " << c;
        ASSERT_EQ(bits(got.hi[c]), bits(want.hi[c])) << "trial " << trial << " component " << c;
      }
      // From the unconverted positions into other memory (a rig the caller keeps): the same.
      std::vector<glm::vec3> apart(n);
      const gltf::PositionBounds gotApart = gltf::mapPositionBounds(mesh.positions.data(), apart.data(), n, *map);
      ASSERT_EQ(std::memcmp(apart.data(), own.positions.data(), 12 * n), 0) << "trial " << trial;
      ASSERT_EQ(gotApart.finite, got.finite) << "trial " << trial;
      for (int c = 0; got.finite && c < 3; ++c) {
        ASSERT_EQ(bits(gotApart.lo[c]), bits(got.lo[c])) << "trial " << trial << " component " << c;
        ASSERT_EQ(bits(gotApart.hi[c]), bits(got.hi[c])) << "trial " << trial << " component " << c;
      }
      std::vector<float> wantNormals(3 * n);
      const uint64_t replaced = gltf::writeUnitNormals(expected.normals.data(), n, wantNormals.data());
      ASSERT_EQ(gltf::writeUnitNormals(own.normals.data(), n, &own.normals[0].x, &*map), replaced) << "trial " << trial;
      ASSERT_EQ(std::memcmp(own.normals.data(), wantNormals.data(), 12 * n), 0) << "trial " << trial;
      mapped += n;
    }
  }
  EXPECT_GT(mapped, 30000u);
}

// The buffer's pieces: owned regions and borrowed arrays keep the offsets a single copied buffer
// would give them (each 4-byte aligned, zero padding between), and at() finds an owned region
// also after a borrowed one has followed it.
TEST(GltfExport, BufferPiecesAreTheBytesOfOneCopiedBuffer) {
  gltf::BufferBuilder b;
  const uint8_t borrowed[8] = {10, 11, 12, 13, 14, 15, 16, 17};
  const size_t first = b.allocate(3);
  b.borrowAccessor(borrowed, sizeof borrowed, 2, gltf::ComponentType::Float, "SCALAR", gltf::ViewTarget::None);
  const size_t second = b.allocate(2);
  std::memcpy(b.at(first), "\x01\x02\x03", 3);  // written after the borrow: at() must look back
  std::memcpy(b.at(second), "\x04\x05", 2);
  EXPECT_EQ(first, 0u);
  EXPECT_EQ(second, 12u);
  const gltf::BinPieces bin = b.finish();
  const std::vector<uint8_t> expected = {1, 2, 3, 0, 10, 11, 12, 13, 14, 15, 16, 17, 4, 5, 0, 0};
  EXPECT_EQ(bin.size, expected.size());
  EXPECT_EQ(bin.joined(), expected);
  ASSERT_EQ(bin.pieces.size(), 3u);
  EXPECT_EQ(bin.pieces[1].data(), borrowed) << "borrowed, not copied";
  std::string json;
  b.appendJson(json);
  EXPECT_NE(json.find("\"byteOffset\":4,\"byteLength\":8"), std::string::npos) << json;
}

TEST(GltfExport, TwoRootBonesGetACommonNonJointParent) {
  Rig rig;
  rig.name = "Pair";
  Bone a;
  a.name = "left";
  a.translation = {-1, 0, 0};
  Bone b;
  b.name = "right";
  b.translation = {1, 0, 0};
  rig.skeleton.bones = {a, b};
  Mesh mesh = Mesh{};
  mesh.name = "left";  // collides with a bone name
  mesh.positions = {{-1, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  mesh.indices = {0, 1, 2};
  mesh.influenceOffsets = {0, 1, 2, 4};
  mesh.influences = {{0, 1}, {1, 1}, {0, 0.5f}, {1, 0.5f}};
  rig.meshes.push_back(mesh);
  const Exported e = exportAndCheck(rig, "two_roots");
  const tinygltf::Model& m = e.glb;
  const int root = nodeNamed(m, "Pair");
  ASSERT_GE(root, 0);
  EXPECT_EQ(m.nodes[static_cast<size_t>(root)].children, (std::vector<int>{0, 1}));
  EXPECT_EQ(m.skins[0].joints, (std::vector<int>{0, 1}));
  EXPECT_EQ(m.skins[0].skeleton, root);
  EXPECT_EQ(nodeNamed(m, "left_2"), 3);
  checkInverseBinds(m, rig);
  checkInfluences(m, 0, rig.meshes[0], rig.skeleton.jointList(), 1, 0);
}

// A skeleton with no mesh (a Sims 3 RIG with its clips) still gets a skin, so importers build an
// armature (Blender makes empties of bare nodes) and rigport's glTF reader finds the rig; the
// validator (run by exportAndCheck) reports the unused skin as an information only.
TEST(GltfExport, SkeletonWithoutMeshExportsBoneNodesAndAnUnusedSkin) {
  Rig rig;
  rig.skeleton = branchingSkeleton();
  const Exported e = exportAndCheck(rig, "skeleton_only");
  EXPECT_EQ(e.glb.nodes.size(), rig.skeleton.bones.size());
  EXPECT_TRUE(e.glb.meshes.empty());
  EXPECT_EQ(e.glb.scenes.at(0).nodes, (std::vector<int>{0}));
  checkInverseBinds(e.glb, rig);
  EXPECT_EQ(e.glb.skins.at(0).skeleton, 0);
  // As a client sees it: joint world (from the written TRS) x inverse bind is the identity.
  EXPECT_LT(test::worstRestPoseError(e.glb), 1e-5f);
}

TEST(GltfExport, UnskinnedMeshWithAttachBoneIsAChildOfThatBone) {
  Rig rig;
  rig.skeleton = branchingSkeleton();
  Mesh hat;
  hat.name = "Hat";
  hat.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  hat.indices = {0, 1, 2};
  hat.attachBone = 2;
  rig.meshes.push_back(hat);
  const Exported e = exportAndCheck(rig, "attached");
  const int node = nodeNamed(e.glb, "Hat");
  ASSERT_GE(node, 0);
  EXPECT_EQ(parentOf(e.glb, node), 2);
  EXPECT_EQ(e.glb.nodes[static_cast<size_t>(node)].skin, -1);
  ASSERT_EQ(e.glb.skins.size(), 1u);  // the skeleton's, which the rigid mesh does not use
  EXPECT_EQ(e.glb.skins[0].joints.size(), rig.skeleton.bones.size());
}

// Rotation keys given unsorted, with a duplicate time (the later one wins) and a sign flip; a
// translation track sharing nothing; a scalar channel, events, and a track bound to no bone.
Animation wave() {
  Animation a;
  a.name = "Wave";
  a.duration = 1.0f;
  BoneTrack t;
  t.bone = 3;
  const glm::quat q0 = axisAngle(0, {0, 0, 1}), q1 = axisAngle(40, {0, 0, 1}), q1b = axisAngle(45, {0, 0, 1}),
                  q2 = axisAngle(90, {0, 0, 1});
  t.rotation.times = {0.5f, 0.0f, 0.5f, 1.0f};
  t.rotation.values = {q1, q0, q1b, -q2};
  t.translation.times = {0.0f, 1.0f};
  t.translation.values = {{0.3f, 0.4f, 0}, {0.3f, 0.6f, 0}};
  a.tracks.push_back(t);
  BoneTrack root;
  root.bone = 0;
  root.scale.times = {0.0f, 0.25f, 1.0f};
  root.scale.values = {{1, 1, 1}, {1.5f, 1, 1}, {1, 1, 1}};
  root.translation.times = root.scale.times;
  root.translation.values = {{0, 1, 0}, {0, 1.1f, 0}, {0, 1, 0}};
  a.tracks.push_back(root);
  BoneTrack unbound;
  unbound.target.name = "tail";
  unbound.rotation.times = {0};
  unbound.rotation.values = {q0};
  a.tracks.push_back(unbound);
  a.scalars.push_back({"blink", "morph:Blink", Keys<float>{{0.0f, 0.5f}, {0.0f, 1.0f}}});
  a.events.push_back({0.75f, "sound", "{\"id\":7}"});
  return a;
}

TEST(GltfExport, AnimationKeysAreSortedDeduplicatedContinuousAndExtrasKeepTheRest) {
  Rig rig = branchingRig();
  rig.animations.push_back(wave());
  const Exported e = exportAndCheck(rig, "animation");
  const tinygltf::Model& m = e.glb;
  ASSERT_EQ(m.animations.size(), 1u);
  const tinygltf::Animation& anim = m.animations[0];
  EXPECT_EQ(anim.name, "Wave");
  ASSERT_EQ(anim.channels.size(), 4u);  // bone 3 T+R, bone 0 T+S
  std::map<std::pair<int, std::string>, const tinygltf::AnimationSampler*> byTarget;
  for (const auto& c : anim.channels) byTarget[{c.target_node, c.target_path}] = &anim.samplers[static_cast<size_t>(c.sampler)];
  for (const auto& s : anim.samplers) EXPECT_EQ(s.interpolation, "LINEAR");

  const auto* rot = byTarget.at({3, "rotation"});
  const std::vector<double> times = components(m, rot->input);
  EXPECT_EQ(times, (std::vector<double>{0.0, 0.5, 1.0}));
  EXPECT_EQ(m.accessors[static_cast<size_t>(rot->input)].minValues, std::vector<double>{0.0});
  EXPECT_EQ(m.accessors[static_cast<size_t>(rot->input)].maxValues, std::vector<double>{1.0});
  const std::vector<double> q = components(m, rot->output);
  ASSERT_EQ(q.size(), 12u);
  const glm::quat expected[] = {axisAngle(0, {0, 0, 1}), axisAngle(45, {0, 0, 1}), axisAngle(90, {0, 0, 1})};
  for (size_t k = 0; k < 3; ++k) {
    // The flipped -q2 comes back in q1's hemisphere, i.e. as +q2.
    EXPECT_NEAR(q[k * 4 + 0], expected[k].x, 1e-6) << k;
    EXPECT_NEAR(q[k * 4 + 1], expected[k].y, 1e-6) << k;
    EXPECT_NEAR(q[k * 4 + 2], expected[k].z, 1e-6) << k;
    EXPECT_NEAR(q[k * 4 + 3], expected[k].w, 1e-6) << k;
  }
  const auto* tr = byTarget.at({3, "translation"});
  EXPECT_EQ(components(m, tr->output), (std::vector<double>{0.3f, 0.4f, 0, 0.3f, 0.6f, 0}));
  // Bone 0's translation and scale share their times, hence their input accessor.
  EXPECT_EQ(byTarget.at({0, "translation"})->input, byTarget.at({0, "scale"})->input);
  EXPECT_EQ(components(m, byTarget.at({0, "scale"})->output).size(), 9u);

  const auto& extras = e.json["animations"][0]["extras"];
  EXPECT_EQ(extras["duration"], 1.0);
  EXPECT_EQ(extras["events"][0]["type"], "sound");
  EXPECT_EQ(extras["events"][0]["time"], 0.75);
  EXPECT_EQ(extras["events"][0]["payload"], "{\"id\":7}");
  EXPECT_EQ(extras["scalarChannels"][0]["name"], "blink");
  EXPECT_EQ(extras["scalarChannels"][0]["target"], "morph:Blink");
  EXPECT_EQ(extras["scalarChannels"][0]["values"], nlohmann::json::array({0.0, 1.0}));
  EXPECT_EQ(extras["unboundTracks"], nlohmann::json::array({"tail"}));
}

TEST(GltfExport, AnimationWithNothingGltfCanAnimateGoesToRootExtras) {
  Rig rig = branchingRig();
  Animation a;
  a.name = "OnlyEvents";
  a.duration = 2.0f;
  a.events.push_back({1.0f, "footstep", ""});
  a.scalars.push_back({"ik", "leg", Keys<float>{{0.0f}, {1.0f}}});
  rig.animations.push_back(a);
  const Exported e = exportAndCheck(rig, "no_channels");
  EXPECT_TRUE(e.glb.animations.empty());
  const auto& kept = e.json["extras"]["animationsWithoutChannels"];
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0]["name"], "OnlyEvents");
  EXPECT_EQ(kept[0]["extras"]["events"][0]["type"], "footstep");
  EXPECT_EQ(kept[0]["extras"]["scalarChannels"][0]["name"], "ik");
}

// A rig moved into the exporter is converted in place instead of copied, and exportGlbInto reuses
// the caller's array (a program converting file after file then allocates no fresh pages for
// either: BENCHMARKS.md, BM_ReadDffAndExportGlbInto). Both must give the bytes of the const form,
// on a rig whose axes need converting (the in-place path) and into an array that held a longer GLB.
TEST(GltfExport, AMovedRigAndAReusedArrayGiveTheBytesOfAKeptRig) {
  Rig rig = makeDemoCharacter();
  rig.provenance.axes.up = AxisSystem::Up::Z;
  rig.provenance.axes.forward = AxisSystem::Axis::PosY;
  rig.provenance.axes.metresPerUnit = 0.01f;
  const auto kept = exportGlb(rig);
  ASSERT_TRUE(kept.ok()) << kept.error().describe();
  ASSERT_FALSE(rig.meshes.empty());
  EXPECT_EQ(rig.meshes[0].positions, makeDemoCharacter().meshes[0].positions) << "exportGlb(const Rig&) changed the caller's rig";

  Rig first = rig;
  const auto moved = exportGlb(std::move(first));
  ASSERT_TRUE(moved.ok()) << moved.error().describe();
  EXPECT_TRUE(*moved == *kept) << "exportGlb(Rig&&) gave other bytes";

  std::vector<uint8_t> reused(kept->size() + 4096, 0xAB);
  const uint8_t* array = reused.data();
  Rig second = rig;
  const Status into = exportGlbInto(std::move(second), reused);
  ASSERT_TRUE(into.ok()) << into.error().describe();
  EXPECT_TRUE(reused == *kept) << "exportGlbInto gave other bytes";
  EXPECT_EQ(reused.data(), array) << "exportGlbInto took a new array where the caller's had room";
}

TEST(GltfExport, ZUpCentimetreRigIsConvertedToYUpMetres) {
  Rig rig;
  rig.provenance.axes.up = AxisSystem::Up::Z;
  rig.provenance.axes.forward = AxisSystem::Axis::PosY;  // a character facing +Y, as in GTA
  rig.provenance.axes.metresPerUnit = 0.01f;
  Bone root;
  root.name = "root";
  root.translation = {0, 0, 100};  // 1 m up in Z-up centimetres
  Bone tip;
  tip.name = "tip";
  tip.parent = 0;
  tip.translation = {0, 50, 0};  // 0.5 m forward (+Y), which is glTF's front, +Z
  rig.skeleton.bones = {root, tip};
  Mesh mesh;
  mesh.name = "stick";
  mesh.positions = {{0, 0, 0}, {0, 50, 100}, {10, 0, 100}};
  mesh.indices = {0, 1, 2};
  mesh.influenceOffsets = {0, 1, 2, 3};
  mesh.influences = {{0, 1}, {1, 1}, {0, 1}};
  rig.meshes.push_back(mesh);
  const Exported e = exportAndCheck(rig, "zup");
  const tinygltf::Model& m = e.glb;
  EXPECT_NEAR(m.nodes[0].translation[1], 1.0, 1e-6);
  EXPECT_NEAR(m.nodes[1].translation[2], 0.5, 1e-6);
  const std::vector<double> pos = components(m, m.meshes[0].primitives[0].attributes.at("POSITION"));
  // Right-handed both ways: with up and forward fixed, the source's +X becomes glTF's -X.
  const std::vector<double> expectedPos = {0, 0, 0, 0, 1, 0.5, -0.1, 1, 0};
  for (size_t i = 0; i < pos.size(); ++i) EXPECT_NEAR(pos[i], expectedPos[i], 1e-6) << i;
  // The IBMs invert the converted world pose: joint 1's rest origin maps to the origin.
  const std::vector<double> ibm = components(m, m.skins[0].inverseBindMatrices);
  EXPECT_NEAR(ibm[16 + 13], -1.0, 1e-6);
  EXPECT_NEAR(ibm[16 + 14], -0.5, 1e-6);
  EXPECT_EQ(e.json["asset"]["extras"]["sourceAxes"]["up"], "Z");
  EXPECT_EQ(e.json["asset"]["extras"]["sourceAxes"]["forward"], "+Y");
}

// The exporter refuses an unrepaired rig with a position glTF cannot hold, naming the first one,
// whether it falls in the bounds pass's lanes or in its tail.
TEST(GltfExport, ANonFinitePositionIsRefusedByName) {
  for (const size_t bad : {size_t{1}, size_t{0}}) {
    Rig rig = branchingRig();
    std::vector<glm::vec3>& positions = rig.meshes.at(0).positions;
    ASSERT_GE(positions.size(), 5u);
    const size_t v = bad == 1 ? 1 : positions.size() - 1;  // in the first group of four, or the last vertex
    positions[v].y = bad == 1 ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    auto glb = exportGlb(rig);
    ASSERT_FALSE(glb.ok());
    EXPECT_NE(glb.error().describe().find(fmt::format("meshes[0]/positions[{}]", v)), std::string::npos) << glb.error().describe();
  }
}

// The .glb that exportGlbParts hands over in pieces, joined.
std::vector<uint8_t> joined(const GlbParts& parts) {
  std::vector<uint8_t> bytes;
  for (std::span<const uint8_t> piece : parts.pieces()) bytes.insert(bytes.end(), piece.begin(), piece.end());
  return bytes;
}

// The CLI moves its rig into exportGlbParts, which converts the axes in place and hands the .glb
// over as head + buffer: the same bytes as exportGlb's copy-and-join, source axes included.
TEST(GltfExport, GlbPartsOfAMovedRigAreTheGlbBytes) {
  Rig rig;
  rig.provenance.axes.up = AxisSystem::Up::Z;
  rig.provenance.axes.forward = AxisSystem::Axis::PosY;
  rig.provenance.axes.metresPerUnit = 0.01f;
  Bone root;
  root.name = "root";
  root.translation = {0, 0, 100};
  rig.skeleton.bones = {root};
  Mesh mesh;
  mesh.name = "tri";
  mesh.positions = {{0, 0, 0}, {0, 50, 100}, {10, 0, 100}};
  mesh.indices = {0, 1, 2};
  mesh.influenceOffsets = {0, 1, 2, 3};
  mesh.influences = {{0, 1}, {0, 1}, {0, 1}};
  rig.meshes.push_back(mesh);
  auto glb = exportGlb(rig);
  ASSERT_TRUE(glb.ok()) << glb.error().describe();
  auto parts = exportGlbParts(Rig(rig));
  ASSERT_TRUE(parts.ok()) << parts.error().describe();
  EXPECT_EQ(joined(*parts), *glb);
  EXPECT_GT(parts->bin.pieces.size(), 1u) << "positions are written from the rig, not copied";
  EXPECT_EQ(parts->head.size() % 4, 0u);
  EXPECT_NE(std::string(glb->begin(), glb->end()).find("\"up\":\"Z\""), std::string::npos) << "the source axes, not glTF's";
}

// The keys glTF reads as they are (times; STEP and LINEAR values) are borrowed from the exporter's
// own animations, not copied: each sampler's bytes are still the per-key rule's (x, y, z and w last;
// a cubic spline's in-tangent, value, out-tangent, the first and last tangent zero), bit for bit,
// and a compensation node's inverse scale keys (made for the export, gone after it) are copied.
TEST(GltfExport, KeysInGltfsLayoutAreBorrowedAndWrittenByThePerKeyRule) {
  Rig rig = branchingRig();
  rig.skeleton.inheritScale = false;
  rig.skeleton.bones[1].scale = glm::vec3(1.0f);  // only root's keyed scale gets a compensation node (spine's)
  rig.animations.push_back(wave());
  Animation curves;
  curves.name = "Curves";
  curves.duration = 1.0f;
  BoneTrack head;
  head.bone = 2;
  head.rotation.interpolation = Interpolation::CubicSpline;
  head.rotation.times = {0.0f, 0.4f, 1.0f};
  head.rotation.values = {axisAngle(0, {1, 0, 0}), axisAngle(30, {1, 0, 0}), axisAngle(70, {1, 0, 0})};
  head.rotation.inTangents = {glm::quat(0.1f, 0.2f, 0.3f, 0.4f), glm::quat(0.5f, 0.6f, 0.7f, 0.8f), glm::quat(0.9f, 1.0f, 1.1f, 1.2f)};
  head.rotation.outTangents = {glm::quat(-0.1f, -0.2f, -0.3f, -0.4f), glm::quat(-0.5f, -0.6f, -0.7f, -0.8f), glm::quat(-0.9f, -1.0f, -1.1f, -1.2f)};
  head.translation.interpolation = Interpolation::Step;
  head.translation.times = {0.0f, 0.5f};
  head.translation.values = {{0.01f, 0.6f, 0.02f}, {0.03f, 0.65f, 0.04f}};
  curves.tracks.push_back(head);
  rig.animations.push_back(curves);

  auto parts = exportGlbParts(Rig(rig));
  ASSERT_TRUE(parts.ok()) << parts.error().describe();
  const std::vector<uint8_t> glb = joined(*parts);
  tinygltf::TinyGLTF loader;
  tinygltf::Model m;
  std::string err, warn;
  ASSERT_TRUE(loader.LoadBinaryFromMemory(&m, &err, &warn, glb.data(), static_cast<unsigned>(glb.size()))) << err;
  std::vector<const uint8_t*> pieces;
  for (std::span<const uint8_t> piece : parts->bin.pieces) pieces.push_back(piece.data());
  const auto borrowed = [&](const void* data) { return std::find(pieces.begin(), pieces.end(), data) != pieces.end(); };
  const auto floats = [&](int accessor) {
    const std::vector<double> c = components(m, accessor);
    return std::vector<float>(c.begin(), c.end());
  };
  const size_t bones = rig.skeleton.bones.size();
  size_t checked = 0, compensation = 0;
  ASSERT_EQ(m.animations.size(), 2u);
  for (size_t a = 0; a < 2; ++a) {
    const Animation& source = parts->source.animations[a];  // made absolute and normalised by the export
    for (const tinygltf::AnimationChannel& c : m.animations[a].channels) {
      const tinygltf::AnimationSampler& sampler = m.animations[a].samplers[static_cast<size_t>(c.sampler)];
      if (static_cast<size_t>(c.target_node) >= bones) {  // a compensation node: its keys are copies
        ++compensation;
        continue;
      }
      const BoneTrack& track = *std::find_if(source.tracks.begin(), source.tracks.end(), [&](const BoneTrack& t) { return t.bone == c.target_node; });
      // The per-key rule, component by component from the glm members.
      const auto rule = [](const auto& keys) {
        std::vector<float> out;
        const bool cubic = keys.interpolation == Interpolation::CubicSpline;
        const auto put = [&](const auto& v, bool zero) {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, glm::quat>) out.insert(out.end(), {zero ? 0 : v.x, zero ? 0 : v.y, zero ? 0 : v.z, zero ? 0 : v.w});
          else out.insert(out.end(), {zero ? 0 : v.x, zero ? 0 : v.y, zero ? 0 : v.z});
        };
        for (size_t k = 0; k < keys.times.size(); ++k) {
          if (cubic) put(keys.inTangents[k], k == 0);
          put(keys.values[k], false);
          if (cubic) put(keys.outTangents[k], k + 1 == keys.times.size());
        }
        return std::make_pair(out, !cubic);
      };
      const auto check = [&](const auto& keys) {
        const auto [expected, borrowable] = rule(keys);
        const std::vector<float> written = floats(sampler.output);
        ASSERT_EQ(written.size(), expected.size()) << c.target_path;
        EXPECT_EQ(std::memcmp(written.data(), expected.data(), written.size() * sizeof(float)), 0) << a << " " << c.target_path;
        const std::vector<float> times = floats(sampler.input);
        EXPECT_EQ(times, keys.times);
        EXPECT_EQ(borrowed(keys.values.data()), borrowable) << a << " " << c.target_path;
        ++checked;
      };
      if (c.target_path == "translation") check(track.translation);
      else if (c.target_path == "rotation") check(track.rotation);
      else check(track.scale);
    }
  }
  EXPECT_EQ(checked, 6u);  // wave's bone 3 T+R and root T+S, the head's T+R
  EXPECT_GE(compensation, 1u);
  // The times every sampler reads (but the compensation's) are the animations' own arrays.
  EXPECT_TRUE(borrowed(parts->source.animations[1].tracks[0].translation.times.data()));
  EXPECT_TRUE(borrowed(parts->source.animations[0].tracks[0].rotation.times.data()));
}

// A mesh of `nv` vertices with `perVertex` influences each (now and then fewer, none, a bone
// named twice or a zero weight), zero normals now and then, and two parts.
Mesh laneMesh(uint32_t nv, uint32_t perVertex, uint32_t bones, uint32_t seed) {
  uint32_t state = seed;
  auto next = [&] { state = state * 1664525u + 1013904223u; return state >> 8; };
  Mesh mesh;
  mesh.name = "lanes" + std::to_string(seed);
  mesh.influenceOffsets.push_back(0);
  for (uint32_t v = 0; v < nv; ++v) {
    mesh.positions.push_back({static_cast<float>(next() % 1000) * 0.01f, static_cast<float>(next() % 1000) * 0.01f, 0.5f});
    mesh.normals.push_back(next() % 50 == 0 ? glm::vec3(0.0f) : glm::vec3(0.1f * static_cast<float>(next() % 9), 1.0f, 0.0f));
    const uint32_t pick = next() % 32;
    const uint32_t count = pick == 0 ? 0 : pick == 1 ? 1 : perVertex;
    for (uint32_t k = 0; k < count; ++k) {
      Influence in{(v + k * 7) % bones, static_cast<float>(1 + next() % 1000) / 997.0f};
      if (pick == 2 && k == 1) in.bone = mesh.influences.back().bone;
      if (pick == 3) in.weight = 0.0f;
      mesh.influences.push_back(in);
    }
    mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
  }
  for (uint32_t v = 0; v + 2 < nv; v += 3) mesh.indices.insert(mesh.indices.end(), {v, (v + 2) % nv, v + 1});
  const uint32_t half = static_cast<uint32_t>(mesh.indices.size() / 6 * 3);
  mesh.parts = {MeshPart{0, 0, half}, MeshPart{0, half, static_cast<uint32_t>(mesh.indices.size()) - half}};
  return mesh;
}

// exportGlbParts may write the glTF bytes over the arrays of the rig moved into it (unit normals,
// u16 indices, byte joints and their weights); its .glb must still be exportGlb's, which reads a
// caller's rig and copies. Meshes whose weights fit over their influences, one that does not
// (mostly single influences), one of two JOINTS sets, and a rig of more than 256 joints.
TEST(GltfExport, AMovedInRigsArraysBecomeTheGlbBytesExportGlbWrites) {
  for (const uint32_t bones : {64u, 300u}) {
    Rig rig;
    for (uint32_t i = 0; i < bones; ++i) {
      Bone b;
      b.name = "b" + std::to_string(i);
      b.parent = static_cast<int32_t>(i) - 1;
      b.translation = {0, 0.01f, 0};
      rig.skeleton.bones.push_back(b);
    }
    rig.materials.resize(1);
    rig.meshes.push_back(laneMesh(1003, 4, bones, 1));  // fits; 1003: the lanes leave a tail
    rig.meshes.push_back(laneMesh(517, 1, bones, 2));   // one influence a vertex: does not fit
    rig.meshes.push_back(laneMesh(260, 6, bones, 3));   // six distinct joints: two sets
    auto glb = exportGlb(rig);
    ASSERT_TRUE(glb.ok()) << glb.error().describe();
    auto parts = exportGlbParts(Rig(rig));
    ASSERT_TRUE(parts.ok()) << parts.error().describe();
    EXPECT_TRUE(joined(*parts) == *glb) << bones << " bones";
    // Borrowed from the rig, not the buffer's own bytes: every mesh's positions, its normals and
    // u16 indices written in place, and (with byte joints) the joints and weights of the first
    // mesh; those of the other two are the buffer's own.
    const gltf::ByteVector& owned = parts->bin.owned;
    size_t borrowed = 0;
    for (std::span<const uint8_t> piece : parts->bin.pieces) {
      if (piece.data() < owned.data() || piece.data() >= owned.data() + owned.size()) borrowed += piece.size();
    }
    size_t expected = bones <= 256 ? 1003 * 20 : 0;
    for (const Mesh& m : rig.meshes) expected += m.positions.size() * 24 + m.indices.size() * 2;
    EXPECT_EQ(borrowed, expected) << bones << " bones";
    // exportGlb leaves a caller's rig as it was.
    Rig keep = rig;
    ASSERT_TRUE(exportGlb(keep).ok());
    EXPECT_EQ(keep.meshes[0].normals, rig.meshes[0].normals);
    EXPECT_EQ(keep.meshes[0].indices, rig.meshes[0].indices);
    EXPECT_TRUE(std::equal(keep.meshes[0].influences.begin(), keep.meshes[0].influences.end(), rig.meshes[0].influences.begin(),
                           [](const Influence& a, const Influence& b) { return a.bone == b.bone && a.weight == b.weight; }));
    EXPECT_EQ(keep.meshes[0].influenceOffsets, rig.meshes[0].influenceOffsets);
  }
}

TEST(GltfExport, MoreThan256JointsUseUnsignedShortJointsAndLargeMeshesU32Indices) {
  Rig rig;
  for (int i = 0; i < 300; ++i) {
    Bone b;
    b.name = "b" + std::to_string(i);
    b.parent = i - 1;
    b.translation = {0, 0.01f, 0};
    rig.skeleton.bones.push_back(b);
  }
  Mesh mesh;
  mesh.name = "big";
  mesh.influenceOffsets.push_back(0);
  for (uint32_t v = 0; v < 70000; ++v) {
    mesh.positions.push_back({static_cast<float>(v % 300) * 0.01f, static_cast<float>(v / 300) * 0.01f, 0});
    mesh.influences.push_back({v % 300, 0.75f});
    mesh.influences.push_back({(v + 1) % 300, 0.25f});
    mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
  }
  for (uint32_t v = 0; v + 2 < 70000; v += 3) mesh.indices.insert(mesh.indices.end(), {v, v + 1, v + 2});
  rig.meshes.push_back(mesh);
  const Exported e = exportAndCheck(rig, "wide");
  const tinygltf::Primitive& prim = e.glb.meshes[0].primitives[0];
  EXPECT_EQ(e.glb.accessors[static_cast<size_t>(prim.indices)].componentType, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT);
  checkInfluences(e.glb, 0, rig.meshes[0], rig.skeleton.jointList(), 1, 0);
}

TEST(GltfExport, BinFileNameIsPercentEncodedInTheUri) {
  const Exported e = exportAndCheck(branchingRig(), "rig with spaces");
  EXPECT_EQ(e.json["buffers"][0]["uri"], "rig%20with%20spaces.bin");
  EXPECT_EQ(e.gltf.meshes.size(), 1u);
}

// Invalid rigs: an error naming the element, and no bytes.
// Model extras reach the glTF object that stands for their owner, merged with rigport's own keys,
// which win on a clash (bone 3 already gets boneId 42, an animation its duration).
TEST(GltfExport, ModelExtrasGoToTheNodeSkinAnimationAndSceneExtras) {
  Rig rig = branchingRig();
  rig.skeleton.bones[3].extras = {{"framePose", {{"translation", {1, 2, 3}}}}, {"boneId", 7}};
  rig.skeleton.extras = {{"palette", "ped"}};
  rig.extras = {{"renderware", {{"version", "3.6.0.3"}}}};
  Animation a = wave();
  a.extras = {{"loop", true}, {"duration", 99}};
  rig.animations.push_back(a);
  const Exported e = exportAndCheck(rig, "extras");
  const auto& bone = e.json["nodes"][3]["extras"];
  EXPECT_EQ(bone["framePose"]["translation"], nlohmann::json::array({1, 2, 3}));
  EXPECT_EQ(bone["boneId"], 42);
  EXPECT_EQ(bone["nameHash"], 0xDEADBEEFu);
  EXPECT_FALSE(e.json["nodes"][2].contains("extras")) << "a bone without extras gets none";
  EXPECT_EQ(e.json["skins"][0]["extras"]["palette"], "ped");
  EXPECT_EQ(e.json["animations"][0]["extras"]["loop"], true);
  EXPECT_EQ(e.json["animations"][0]["extras"]["duration"], 1.0);
  EXPECT_EQ(e.json["scenes"][0]["extras"]["renderware"]["version"], "3.6.0.3");
}

void expectRejected(const Rig& rig, const std::string& pathPart) {
  auto glb = exportGlb(rig);
  ASSERT_FALSE(glb.ok());
  EXPECT_NE(glb.error().path.find(pathPart), std::string::npos) << glb.error().describe();
  auto files = exportGltf(rig, "x.bin");
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.error().path, glb.error().path);
}

// asset.extras.file names the input file only: an absolute path would leak the converting
// machine's folders into every shared .glb.
TEST(GltfExport, AssetExtrasNameTheInputFileWithoutItsFolders) {
  Rig rig = branchingRig();
  rig.provenance.file = "/home/someone/mods/peds/branching.test";
  const Exported e = exportAndCheck(rig, "file_name");
  EXPECT_EQ(e.json["asset"]["extras"]["file"], "branching.test");
}

// three.js renames a node named like the scene, so a clip from another file would drive the
// scene group: a rig named like its root bone ("root") gets a scene name no node has.
TEST(GltfExport, SceneNameDiffersFromEveryNodeName) {
  Rig rig = branchingRig();
  rig.name = "root";
  rig.skeleton.bones[4].name = "root_scene";  // the first fallback is taken too
  const Exported e = exportAndCheck(rig, "scene_name");
  const std::string scene = e.json["scenes"][0]["name"];
  EXPECT_EQ(scene.rfind("root", 0), 0u) << scene;
  for (const auto& node : e.json["nodes"]) EXPECT_NE(node["name"], scene);
}

TEST(GltfExport, ExtrasThatAreNotAnObjectAreRejected) {
  Rig rig = branchingRig();
  rig.skeleton.bones[2].extras = nlohmann::json::array({1});
  expectRejected(rig, "skeleton/bones[2]/extras");
}

// Each object's extras are checked under its own path (validate() formats it only on an error).
TEST(GltfExport, ExtrasThatAreNotAnObjectNameTheirObject) {
  {
    Rig rig = branchingRig();
    rig.extras = "text";
    expectRejected(rig, "rig/extras");
  }
  {
    Rig rig = branchingRig();
    rig.materials.resize(2);
    rig.materials[1].extras = 3;
    expectRejected(rig, "materials[1]/extras");
  }
  {
    Rig rig = branchingRig();
    rig.animations.resize(2);
    rig.animations[1].extras = nlohmann::json::array();
    expectRejected(rig, "animations[1]/extras");
  }
}

TEST(GltfExport, ParentAfterChildIsRejected) {
  Rig rig = branchingRig();
  rig.skeleton.bones[1].parent = 3;
  expectRejected(rig, "skeleton/bones[1]");
}

TEST(GltfExport, NanWeightIsRejected) {
  Rig rig = branchingRig();
  rig.meshes[0].influences[2].weight = std::nanf("");
  expectRejected(rig, "meshes[0]/influences[2]");
}

TEST(GltfExport, IndexOutOfRangeIsRejected) {
  Rig rig = branchingRig();
  rig.meshes[0].indices[4] = 8;
  expectRejected(rig, "meshes[0]/indices[4]");
}

TEST(GltfExport, InfluenceOnABoneOutsideTheJointListIsRejected) {
  Rig rig = branchingRig();
  rig.skeleton.joints = {0, 1, 2, 3, 4};  // bone 5 is not a joint, the last vertex uses it
  expectRejected(rig, "meshes[0]/influences[");
}

TEST(GltfExport, NegativeKeyTimeIsRejected) {
  Rig rig = branchingRig();
  Animation a = wave();
  a.tracks[0].translation.times[0] = -0.5f;
  rig.animations.push_back(a);
  expectRejected(rig, "animations[0]/tracks[0]/translation");
}


// A rig of clips that the repair, the key normalisation and the axis change each have work in:
// unsorted and repeated key times, rotations neither unit nor in one hemisphere, a damaged key, a
// clip starting before 0, tracks relative to the bind pose, cubic splines with tangents, scale keys.
Rig clipsNeedingEveryPass(const AxisSystem& axes) {
  Rig rig = makeDemoCharacter();
  rig.provenance.axes = axes;
  rig.animations.clear();
  uint32_t state = 11;
  auto next = [&] { state = state * 1664525u + 1013904223u; return state >> 8; };
  auto number = [&] { return (static_cast<float>(next() % 2001) - 1000.0f) / 250.0f; };
  const size_t bones = rig.skeleton.bones.size();
  for (size_t c = 0; c < 9; ++c) {
    Animation& anim = rig.animations.emplace_back();
    anim.name = fmt::format("clip{}", c);
    for (size_t b = c % 3; b < bones; b += 2) {
      BoneTrack& t = anim.tracks.emplace_back();
      t.bone = static_cast<int32_t>(b);
      t.space = (b + c) % 4 == 0 ? TrackSpace::RelativeToBind : TrackSpace::Absolute;
      const size_t n = 2 + next() % 11;
      const bool cubic = (b + c) % 5 == 0;
      std::vector<float> times(n);
      for (size_t k = 0; k < n; ++k) times[k] = static_cast<float>(k) / 30.0f - (c == 4 ? 0.25f : 0.0f);
      if (c % 3 == 1) std::swap(times[0], times[n - 1]);  // out of order: sorted at export
      if (c == 5) times[n - 1] = times[0];                // a repeated time: merged
      auto fill = [&](auto& keys, auto make) {
        keys.times = times;
        keys.interpolation = cubic ? Interpolation::CubicSpline : Interpolation::Linear;
        for (size_t k = 0; k < n; ++k) keys.values.push_back(make());
        for (size_t k = 0; cubic && k < n; ++k) {
          keys.inTangents.push_back(make());
          keys.outTangents.push_back(make());
        }
      };
      fill(t.translation, [&] { return glm::vec3(number(), number(), number()); });
      fill(t.rotation, [&] { return glm::quat(number(), number(), number(), number()); });
      if (b % 3 == 0) fill(t.scale, [&] { return glm::vec3(0.5f + std::fabs(number()), 1.0f, 0.75f); });
    }
    anim.duration = 12.0f / 30.0f;
  }
  rig.animations[2].tracks[1].rotation.values[1] = glm::quat(std::nanf(""), 0.0f, 0.0f, 1.0f);  // dropped by the repair
  rig.animations[6].tracks[0].rotation.values[0] = glm::quat(3e38f, 1e38f, 0.0f, 0.0f);          // rescaled by the repair
  return rig;
}

// The JSON and BIN chunks of a GLB, the JSON parsed.
std::pair<nlohmann::json, std::vector<uint8_t>> glbChunks(const std::vector<uint8_t>& glb) {
  auto u32 = [&](size_t at) { uint32_t v; std::memcpy(&v, glb.data() + at, 4); return v; };
  const size_t jsonLength = u32(12);
  const size_t bin = 20 + jsonLength;
  return {nlohmann::json::parse(glb.begin() + 20, glb.begin() + static_cast<std::ptrdiff_t>(bin)),
          std::vector<uint8_t>(glb.begin() + static_cast<std::ptrdiff_t>(bin + 8), glb.end())};
}

// The exporter converts, validates and normalises each clip's keys when it gets to the clip, where
// these were passes over the whole rig first (convertAxes(), validate()): what it writes must be
// what the whole-rig passes give, after the repair, for a turn, a mirror and a unit scale.
TEST(GltfExport, ClipByClipPassesGiveWhatTheWholeRigPassesGive) {
  AxisSystem gta;
  gta.up = AxisSystem::Up::Z;
  gta.forward = AxisSystem::Axis::PosY;
  gta.metresPerUnit = 0.01f;
  AxisSystem mirrored;
  mirrored.rightHanded = false;
  mirrored.forward = AxisSystem::Axis::NegX;
  mirrored.metresPerUnit = 3.0f;
  for (const AxisSystem& axes : {gta, mirrored}) {
    Rig rig = clipsNeedingEveryPass(axes);
    ASSERT_TRUE(repairRig(rig));
    ASSERT_EQ(rig.provenance.warnings.size(), 3u);  // the damaged key, the key out of float range, the clip before 0
    // The whole-rig rule: every key in glTF's axes and the whole rig validated, then exported as a
    // rig that needs no axis change.
    Rig whole = rig;
    convertAxes(whole, AxisSystem{});
    ASSERT_TRUE(validate(whole));
    const auto want = exportGlb(whole);
    ASSERT_TRUE(want.ok()) << want.error().describe();
    const auto kept = exportGlb(rig);  // a copy converted (buildFrom)
    ASSERT_TRUE(kept.ok()) << kept.error().describe();
    Rig moved = rig;
    const auto own = exportGlb(std::move(moved));  // converted in place, as the CLI does
    ASSERT_TRUE(own.ok()) << own.error().describe();
    EXPECT_TRUE(*own == *kept);
    auto [json, bin] = glbChunks(*own);
    auto [wantJson, wantBin] = glbChunks(*want);
    EXPECT_TRUE(bin == wantBin) << "the keys differ from the whole-rig passes'";
    json["asset"]["extras"].erase("sourceAxes");  // the source's axes, glTF's for the converted rig
    wantJson["asset"]["extras"].erase("sourceAxes");
    EXPECT_EQ(json, wantJson);
    EXPECT_EQ(json["animations"].size(), 9u);
  }
}

// validate() checked every clip before any was exported: a clip's invalid keys are still the error
// when an earlier clip, checked and exported first now, has an export error of its own.
TEST(GltfExport, AClipsInvalidKeysComeBeforeAnEarlierClipsExportError) {
  Rig rig = branchingRig();
  Animation twice = wave();
  twice.tracks.push_back(twice.tracks[0]);  // a second track on the same bone: an export error
  rig.animations.push_back(twice);
  Animation broken = wave();
  broken.tracks[0].translation.times[1] = std::nanf("");  // validate()'s error
  rig.animations.push_back(broken);
  const Status whole = validate(rig);
  ASSERT_FALSE(whole);
  for (const bool convert : {false, true}) {
    Rig r = rig;
    if (convert) r.provenance.axes.up = AxisSystem::Up::Z;
    const auto glb = exportGlb(r);
    ASSERT_FALSE(glb.ok());
    EXPECT_EQ(glb.error().path, whole.error().path);
    EXPECT_EQ(glb.error().message, whole.error().message);
  }
}

}  // namespace
}  // namespace rigport
