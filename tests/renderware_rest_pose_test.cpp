// Which pose a DFF rests in and what its skin binds to, on hand-edited copies of the generic sample
// (format note renderware.md §1.2, §1.5, §1.9): frames turned against the skin give a glTF whose rest
// pose is the skin's bind pose (joint world × inverse bind = identity within 1e-5), sheared frames
// are reported as such, and a vertex without weights on a non-joint atomic frame rides on a joint.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <tiny_gltf.h>

#include "export/gltf.hpp"
#include "formats/renderware/renderware.hpp"
#include "support/gltf_validator.hpp"
#include "support/test_support.hpp"

using namespace rigport;

namespace {

constexpr size_t kSampleVertices = 14;
constexpr size_t kSampleNodes = 6;

std::vector<uint8_t> sample() { return test::readBytes(test::sample("renderware/synthetic_skin_rw36003.dff")); }

// First chunk header of `type` carrying the sample's library stamp; 0 if none.
size_t findChunk(const std::vector<uint8_t>& bytes, uint32_t type) {
  for (size_t i = 0; i + 12 <= bytes.size(); ++i) {
    uint32_t t, stamp;
    std::memcpy(&t, &bytes[i], 4);
    std::memcpy(&stamp, &bytes[i + 8], 4);
    if (t == type && stamp == 0x1803FFFFu) return i;
  }
  return 0;
}

// Offset of frame `f`'s 56-byte record: FrameList header, Struct header, numFrames (§1.2).
size_t frameRecord(const std::vector<uint8_t>& bytes, size_t f) { return findChunk(bytes, 0x0E) + 12 + 12 + 4 + 56 * f; }

glm::mat4 readFrame(const std::vector<uint8_t>& bytes, size_t f) {
  glm::mat4 m(1.0f);
  for (int c = 0; c < 4; ++c) std::memcpy(&m[c][0], &bytes[frameRecord(bytes, f) + 12 * c], 12);
  return m;
}

void writeFrame(std::vector<uint8_t>& bytes, size_t f, const glm::mat4& m) {
  for (int c = 0; c < 4; ++c) std::memcpy(&bytes[frameRecord(bytes, f) + 12 * c], &m[c][0], 12);
}

// Offset of node n's inverse matrix in the new-layout Skin PLG (§1.5): header, usedBones,
// indices, weights, then 64-byte matrices.
size_t skinMatrix(const std::vector<uint8_t>& bytes, size_t node) {
  const size_t skin = findChunk(bytes, 0x116) + 12;
  return skin + 4 + bytes[skin + 1] + kSampleVertices * 20 + 64 * node;
}

Rig read(const std::vector<uint8_t>& bytes) {
  auto rig = renderware::readDff(bytes);
  EXPECT_TRUE(rig.ok()) << (rig.ok() ? "" : rig.error().describe());
  return rig.ok() ? std::move(*rig) : Rig{};
}

const Warning* findWarning(const Rig& rig, const std::string& code) {
  for (const Warning& w : rig.provenance.warnings)
    if (w.code == code) return &w;
  return nullptr;
}

// Exports `rig` to <scratch>/<name>.glb, which must pass the Khronos validator, and reads it back.
tinygltf::Model exportAndLoad(const Rig& rig, const std::string& name) {
  tinygltf::Model model;
  auto glb = exportGlb(rig);
  EXPECT_TRUE(glb.ok()) << (glb.ok() ? "" : glb.error().describe());
  if (!glb.ok()) return model;
  const std::string path = test::scratchDir(name) + "/" + name + ".glb";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(glb->data()), static_cast<std::streamsize>(glb->size()));
  const test::ValidatorRun run = test::validateGltfFile(path);
  EXPECT_TRUE(run.ok) << run.output;
  tinygltf::TinyGLTF loader;
  std::string err, warn;
  EXPECT_TRUE(loader.LoadBinaryFromFile(&model, &err, &warn, path)) << err;
  return model;
}

glm::mat4 nodeLocal(const tinygltf::Node& n) {
  glm::mat4 m(1.0f);
  if (!n.translation.empty()) m = glm::translate(m, glm::vec3(n.translation[0], n.translation[1], n.translation[2]));
  if (!n.rotation.empty()) {
    m *= glm::mat4_cast(glm::quat(static_cast<float>(n.rotation[3]), static_cast<float>(n.rotation[0]),
                                  static_cast<float>(n.rotation[1]), static_cast<float>(n.rotation[2])));
  }
  if (!n.scale.empty()) m = glm::scale(m, glm::vec3(n.scale[0], n.scale[1], n.scale[2]));
  return m;
}

// Largest |joint world × inverse bind − identity| over every joint of the glTF's skin, the node
// worlds taken from the written TRS.
float worstRestPoseError(const tinygltf::Model& m) {
  std::vector<int> parent(m.nodes.size(), -1);
  for (size_t n = 0; n < m.nodes.size(); ++n)
    for (int c : m.nodes[n].children) parent[static_cast<size_t>(c)] = static_cast<int>(n);
  auto world = [&](int n) {
    glm::mat4 w(1.0f);
    for (; n >= 0; n = parent[static_cast<size_t>(n)]) w = nodeLocal(m.nodes[static_cast<size_t>(n)]) * w;
    return w;
  };
  const tinygltf::Skin& skin = m.skins.at(0);
  const tinygltf::Accessor& a = m.accessors.at(static_cast<size_t>(skin.inverseBindMatrices));
  const tinygltf::BufferView& v = m.bufferViews.at(static_cast<size_t>(a.bufferView));
  const uint8_t* data = m.buffers.at(0).data.data() + v.byteOffset + a.byteOffset;
  float worst = 0.0f;
  for (size_t j = 0; j < skin.joints.size(); ++j) {
    glm::mat4 ibm;
    std::memcpy(&ibm[0][0], data + 64 * j, 64);
    const glm::mat4 id = world(skin.joints[j]) * ibm;
    for (int c = 0; c < 4; ++c)
      for (int r = 0; r < 4; ++r) worst = std::max(worst, std::fabs(id[c][r] - (c == r ? 1.0f : 0.0f)));
  }
  return worst;
}

// Issue 13: most real SA peds have their frame hierarchy turned against the skin. Here frame 2
// ("Pelvis") is turned 120° about X, so the FrameList pose lies down while the skin stands.
TEST(RenderwareRestPose, FramesTurnedAgainstTheSkinRestInTheSkinsBindPose) {
  const Rig original = read(sample());
  EXPECT_EQ(findWarning(original, "bind-pose"), nullptr);
  EXPECT_LT(worstRestPoseError(exportAndLoad(original, "rest_pose_sample")), 1e-5f);

  std::vector<uint8_t> bytes = sample();
  ASSERT_EQ(original.skeleton.bones.at(2).name, "Pelvis");
  const glm::mat4 turn = glm::rotate(glm::mat4(1.0f), glm::radians(120.0f), glm::vec3(1, 0, 0));
  glm::mat4 pelvis = readFrame(bytes, 2);
  const glm::vec4 position = pelvis[3];
  pelvis = turn * pelvis;
  pelvis[3] = position;
  writeFrame(bytes, 2, pelvis);

  const Rig rig = read(bytes);
  const Warning* w = findWarning(rig, "bind-pose");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("the rest pose is the skin's bind pose"), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("worst: node"), std::string::npos) << w->message;
  // The rest pose is the original one again, the file's turned pose is kept in extras.
  const Bone& bone = rig.skeleton.bones[2];
  EXPECT_NEAR(std::fabs(glm::dot(bone.rotation, original.skeleton.bones[2].rotation)), 1.0f, 1e-5f);
  ASSERT_TRUE(bone.extras.contains("framePose"));
  const nlohmann::json& r = bone.extras["framePose"]["rotation"];
  const glm::quat framePose(r[3].get<float>(), r[0].get<float>(), r[1].get<float>(), r[2].get<float>());
  EXPECT_NEAR(std::fabs(glm::dot(framePose, glm::quat_cast(glm::mat3(pelvis)))), 1.0f, 1e-5f);
  EXPECT_EQ(bone.extras["framePose"]["translation"], nlohmann::json::array({position.x, position.y, position.z}));
  EXPECT_FALSE(rig.skeleton.bones[0].extras.contains("framePose")) << "a frame that is not a joint keeps its pose";

  const tinygltf::Model m = exportAndLoad(rig, "rest_pose_turned");
  EXPECT_LT(worstRestPoseError(m), 1e-5f);
  int pelvisNode = -1;
  for (size_t n = 0; n < m.nodes.size(); ++n)
    if (m.nodes[n].name == "Pelvis") pelvisNode = static_cast<int>(n);
  ASSERT_GE(pelvisNode, 0);
  EXPECT_TRUE(m.nodes[static_cast<size_t>(pelvisNode)].extras.Has("framePose"));
}

// Real GTA III frames carry a slight shear that glTF nodes cannot hold. Frame 6 ("Head") gets
// up += 0.05·right and its skin matrix is rewritten to match the sheared frame, as in those files:
// the shear is reported, the skin is not blamed, and its matrix stays the file's own.
TEST(RenderwareRestPose, ShearedFramesAreReportedWithoutBlamingTheSkin) {
  const Rig original = read(sample());
  const Skeleton& sk = original.skeleton;
  ASSERT_EQ(sk.bones.at(6).name, "Head");
  ASSERT_EQ(sk.joints.size(), kSampleNodes);
  const size_t node = static_cast<size_t>(std::find(sk.joints.begin(), sk.joints.end(), 6u) - sk.joints.begin());
  ASSERT_LT(node, kSampleNodes);

  std::vector<uint8_t> bytes = sample();
  glm::mat4 head = readFrame(bytes, 6);
  head[1] += 0.05f * head[0];
  writeFrame(bytes, 6, head);
  const std::vector<glm::mat4> world = sk.worldBindMatrices();
  const int32_t atomicBone = sk.find("Root");  // the sample's atomic frame
  ASSERT_GE(atomicBone, 0);
  const glm::mat4 ibm = glm::inverse(glm::inverse(world[static_cast<size_t>(atomicBone)]) * world[3] * head);
  std::memcpy(&bytes[skinMatrix(bytes, node)], &ibm[0][0], 64);

  const Rig rig = read(bytes);
  EXPECT_EQ(findWarning(rig, "bind-pose"), nullptr) << findWarning(rig, "bind-pose")->message;
  const Warning* w = findWarning(rig, "frame-shear");
  ASSERT_NE(w, nullptr);
  // up' = up + 0.05·right: cos of the angle between right and up' is 0.05 / |up'|.
  const std::string amount = fmt::format("'Head' ({:.3g})", 0.05f / std::sqrt(1.0f + 0.05f * 0.05f));
  EXPECT_NE(w->message.find(amount), std::string::npos) << w->message;
  EXPECT_NE(w->message.find("glTF nodes hold only translation, rotation and scale"), std::string::npos) << w->message;
  ASSERT_TRUE(rig.skeleton.bones[6].inverseBind.has_value());
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 3; ++r) EXPECT_EQ((*rig.skeleton.bones[6].inverseBind)[c][r], ibm[c][r]) << c << "," << r;
  for (const Bone& b : rig.skeleton.bones) EXPECT_FALSE(b.extras.contains("framePose")) << b.name;
}

// Issue 13: a vertex whose weights are all zero is bound to the atomic's frame; when that frame
// is not a joint (here the atomic moves to frame 0, the clump root), it rides on a joint instead:
// the frame has no joint ancestor, so the hierarchy's first node.
TEST(RenderwareRestPose, UnweightedVertexOnANonJointAtomicFrameRidesOnAJoint) {
  std::vector<uint8_t> bytes = sample();
  const size_t skin = findChunk(bytes, 0x116) + 12;
  const size_t weights = skin + 4 + bytes[skin + 1] + kSampleVertices * 4;
  std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(weights), bytes.begin() + static_cast<std::ptrdiff_t>(weights + 16), 0);
  const size_t atomicStruct = findChunk(bytes, 0x14) + 12 + 12;  // Atomic header, Struct header
  uint32_t frame;
  std::memcpy(&frame, &bytes[atomicStruct], 4);
  ASSERT_EQ(frame, 1u);
  const uint32_t clumpRoot = 0;
  std::memcpy(&bytes[atomicStruct], &clumpRoot, 4);

  const Rig rig = read(bytes);
  const Skeleton& sk = rig.skeleton;
  ASSERT_EQ(std::find(sk.joints.begin(), sk.joints.end(), 0u), sk.joints.end()) << "frame 0 must not be a joint";
  const Mesh& mesh = rig.meshes.at(0);
  ASSERT_EQ(mesh.influenceOffsets[1] - mesh.influenceOffsets[0], 1u);
  EXPECT_EQ(mesh.influences[0].bone, sk.joints.at(0));
  const Warning* w = findWarning(rig, "unweighted-vertex");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->message.find("joint '" + sk.bones[sk.joints[0]].name + "'"), std::string::npos) << w->message;
  const tinygltf::Model m = exportAndLoad(rig, "unweighted_non_joint");
  EXPECT_EQ(m.skins.size(), 1u);
}

}  // namespace
