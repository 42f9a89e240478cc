// A Spore arena's rig through Blender (issue 28): Blender imports each scale compensation node
// rigport's glTF exporter puts between a bone and its child (a skeleton whose children do not inherit
// scale, rw4_arena.md §5) as a bone, exports it as a joint with its own keys, and drops the skin's
// extras. rigport's glTF reader folds such a joint into its child as it folds its own nodes, so the
// rig comes back with the arena's bones and clip, and `--base` writes it onto the original byte for
// byte. The original is a creature rigport's writer lays out in Spore's objects (no real Spore file
// is committed, README).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <tuple>

#include <glm/gtc/quaternion.hpp>

#include "formats/registry.hpp"
#include "formats/rw4/rw4.hpp"
#include "support/gltf_edit.hpp"
#include "support/gltf_pose.hpp"
#include "support/gltf_validator.hpp"
#include "support/spore_axes.hpp"
#include "support/test_support.hpp"

namespace rigport {
namespace {

using test::bone;

enum FileBone : uint32_t { kRoot, kHips, kSpine, kHead, kTail };

// A Z-up creature: root → hips → spine → head, hips → tail; a column of quads up its body, every
// vertex on two bones (0.75 / 0.25), with normals and UVs (Spore's 36-byte vertex).
Rig creature() {
  Rig rig;
  rig.name = "creature";
  rig.provenance.axes = test::kSporeAxes;
  rig.skeleton.inheritScale = false;
  auto& bones = rig.skeleton.bones;
  bones.push_back(bone("root", -1, {0, 0, 0}));
  bones.push_back(bone("hips", 0, {0, 0, 0.5f}, glm::angleAxis(0.3f, glm::vec3(0, 0, 1))));
  bones.push_back(bone("spine", 1, {0, 0, 0.5f}));
  bones.push_back(bone("head", 2, {0, 0.05f, 0.6f}, glm::angleAxis(-0.2f, glm::vec3(1, 0, 0))));
  bones.push_back(bone("tail", 1, {0, 0.4f, 0}));
  Mesh mesh;
  mesh.name = "body";
  mesh.influenceOffsets.push_back(0);
  for (int r = 0; r < 5; ++r) {
    for (int c = 0; c < 2; ++c) {
      const float x = c == 0 ? -0.2f : 0.2f;
      mesh.positions.emplace_back(x, -0.1f, 0.4f * static_cast<float>(r));
      mesh.normals.push_back(glm::normalize(glm::vec3(x, -1.0f, 0.1f)));
      mesh.uvs.emplace_back(static_cast<float>(c), 0.25f * static_cast<float>(r));
      const uint32_t main = static_cast<uint32_t>(std::min(r, 3)), other = r == 2 ? 4u : (main + 1) % 4;
      mesh.influences.push_back(Influence{main, 0.75f});
      mesh.influences.push_back(Influence{other, 0.25f});
      mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
    }
  }
  for (uint32_t r = 0; r + 1 < 5; ++r) {
    const uint32_t a = 2 * r;
    mesh.indices.insert(mesh.indices.end(), {a, a + 2, a + 1, a + 1, a + 2, a + 3});
  }
  rig.meshes.push_back(mesh);
  Animation clip;
  clip.name = "0x0AC4AEED";
  clip.duration = 1.0f;
  BoneTrack head;
  head.bone = kHead;
  head.target.name = "head";
  head.rotation.times = {0.0f, 1.0f};
  head.rotation.values = {bones[kHead].rotation, glm::angleAxis(0.5f, glm::vec3(0, 1, 0))};
  clip.tracks.push_back(head);
  rig.animations.push_back(clip);
  return rig;
}

std::vector<uint8_t> originalArena() {
  rw4::ArenaWriteOptions o;
  o.platform = rw4::Platform::Pc;
  o.sporeMeshes = true;
  o.animationObjects = true;
  auto written = rw4::writeArena(creature(), o);
  EXPECT_TRUE(written.ok()) << written.error().describe();
  return written.ok() ? *written : std::vector<uint8_t>{};
}

struct Fixture {
  std::string dir, original, glb;
  std::vector<uint8_t> bytes;
};

// The original on disk and converted to a validator-clean .glb by the CLI.
Fixture fixture(const std::string& name) {
  Fixture f;
  f.dir = test::scratchDir(name);
  f.bytes = originalArena();
  f.original = f.dir + "/original.rw4";
  std::ofstream(f.original, std::ios::binary).write(reinterpret_cast<const char*>(f.bytes.data()), static_cast<std::streamsize>(f.bytes.size()));
  f.glb = f.dir + "/original.glb";
  const test::CliRun run = test::runCli("convert " + test::quote(f.original) + " -o " + test::quote(f.glb));
  EXPECT_EQ(run.code, 0) << run.text;
  const test::ValidatorRun v = test::validateGltfFile(f.glb);
  EXPECT_TRUE(v.ok) << v.output;
  return f;
}

Rig rigOf(const std::string& path) {
  auto asset = loadAsset(path);
  EXPECT_TRUE(asset.ok()) << (asset ? "" : asset.error().describe());
  return asset && !asset->rigs.empty() ? asset->rigs.at(0) : Rig{};
}

// Fact (measured with Blender 3.4 through the add-on on this test's original): Blender imports each
// scale compensation node rigport's exporter puts between a bone and its child (extras
// rigportScaleCompensation, gltf_nodes.cpp) as a bone and exports it as a joint of the skin, its
// mark written back as 1, and drops the skin's extras (rigportInheritScale). Before the glTF reader
// folded such joints, the arena came back with 8 bones for 5 and --base refused it. The fixture is
// rigport's .glb edited so: each marked node appended to the skin's joints (its inverse bind matrix
// the inverse of its world pose, as Blender writes it), the marks as 1, the skin's extras removed.
TEST(GltfBlenderCompensation, ABlenderExportOfASporeArenaWritesOntoTheOriginal) {
  const Fixture f = fixture("gltf_blender_compensation");
  tinygltf::Model m = test::loadGlbModel(f.glb);
  ASSERT_EQ(m.skins.size(), 1u);
  tinygltf::Skin& skin = m.skins[0];
  const tinygltf::Accessor old = m.accessors.at(static_cast<size_t>(skin.inverseBindMatrices));
  const tinygltf::BufferView& view = m.bufferViews.at(static_cast<size_t>(old.bufferView));
  std::vector<float> ibm(old.count * 16);
  std::memcpy(ibm.data(), m.buffers[0].data.data() + view.byteOffset + old.byteOffset, ibm.size() * 4);
  test::GltfPose pose(m);
  size_t added = 0;
  for (size_t n = 0; n < m.nodes.size(); ++n) {
    if (!m.nodes[n].extras.Has("rigportScaleCompensation")) continue;  // Has: Get asserts on a node without extras
    tinygltf::Value::Object extras = m.nodes[n].extras.Get<tinygltf::Value::Object>();
    extras["rigportScaleCompensation"] = tinygltf::Value(1);
    m.nodes[n].extras = tinygltf::Value(extras);
    skin.joints.push_back(static_cast<int>(n));
    const glm::mat4 inverse = glm::inverse(pose.world(static_cast<int>(n)));
    ibm.insert(ibm.end(), &inverse[0][0], &inverse[0][0] + 16);
    ++added;
  }
  ASSERT_GT(added, 0u) << "the exporter wrote no compensation node";
  skin.extras = tinygltf::Value();
  skin.extras_json_string.clear();
  // Floats appended to the buffer as an accessor of `type`.
  auto addAccessor = [&m](const std::vector<float>& floats, int type, size_t count) {
    std::vector<unsigned char>& buffer = m.buffers[0].data;
    while (buffer.size() % 4 != 0) buffer.push_back(0);
    tinygltf::BufferView view;
    view.buffer = 0;
    view.byteOffset = buffer.size();
    view.byteLength = floats.size() * 4;
    buffer.resize(buffer.size() + floats.size() * 4);
    std::memcpy(buffer.data() + view.byteOffset, floats.data(), floats.size() * 4);
    m.bufferViews.push_back(view);
    tinygltf::Accessor a;
    a.bufferView = static_cast<int>(m.bufferViews.size() - 1);
    a.componentType = TINYGLTF_COMPONENT_TYPE_FLOAT;
    a.type = type;
    a.count = count;
    m.accessors.push_back(a);
    return static_cast<int>(m.accessors.size() - 1);
  };
  skin.inverseBindMatrices = addAccessor(ibm, TINYGLTF_TYPE_MAT4, ibm.size() / 16);
  // Blender keys every bone: each compensation bone's rotation (the identity) and its child's
  // translation (zero, the compensation bone holds it), on the clip's own times.
  ASSERT_EQ(m.animations.size(), 1u);
  tinygltf::Animation& clip = m.animations[0];
  const int times = clip.samplers.at(0).input;
  const size_t keys = m.accessors.at(static_cast<size_t>(times)).count;
  const int identity = addAccessor([&] {
    std::vector<float> q;
    for (size_t k = 0; k < keys; ++k) q.insert(q.end(), {0, 0, 0, 1});
    return q;
  }(), TINYGLTF_TYPE_VEC4, keys);
  const int zero = addAccessor(std::vector<float>(keys * 3, 0.0f), TINYGLTF_TYPE_VEC3, keys);
  for (size_t n = 0; n < m.nodes.size(); ++n) {
    if (!m.nodes[n].extras.Has("rigportScaleCompensation")) continue;  // Has: Get asserts on a node without extras
    for (const auto& [node, path, output] : {std::tuple{static_cast<int>(n), "rotation", identity},
                                             std::tuple{m.nodes[n].children.at(0), "translation", zero}}) {
      tinygltf::AnimationSampler sampler;
      sampler.input = times;
      sampler.output = output;
      sampler.interpolation = "LINEAR";
      clip.samplers.push_back(sampler);
      tinygltf::AnimationChannel channel;
      channel.sampler = static_cast<int>(clip.samplers.size() - 1);
      channel.target_node = node;
      channel.target_path = path;
      clip.channels.insert(clip.channels.begin(), channel);  // before the real ones: a first-kept rule would lose those
    }
  }
  const std::string glb = test::save(m, f.dir + "/blender.glb");

  const Rig read = rigOf(glb), unedited = rigOf(f.glb);
  EXPECT_EQ(read.skeleton.bones.size(), 5u) << "compensation joints folded into their children";
  EXPECT_FALSE(read.skeleton.inheritScale) << "the compensation nodes say the rule the skin's extras no longer do";
  EXPECT_TRUE(std::none_of(read.provenance.warnings.begin(), read.provenance.warnings.end(),
                           [](const Warning& w) { return w.code == "duplicate-channel"; }));
  const test::CliRun clips = test::runCli("compare " + test::quote(f.glb) + " " + test::quote(glb));
  EXPECT_EQ(clips.code, 0) << "the clip poses as rigport exported it: " << clips.text;
  ASSERT_EQ(read.animations.size(), unedited.animations.size());
  const std::string out = f.dir + "/blender.rw4";
  const test::CliRun run =
      test::runCli("convert " + test::quote(glb) + " --to rw4-arena --base " + test::quote(f.original) + " -o " + test::quote(out));
  ASSERT_EQ(run.code, 0) << run.text;
  EXPECT_EQ(test::readBytes(out), f.bytes);
}

}  // namespace
}  // namespace rigport
