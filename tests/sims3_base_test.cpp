// `convert --to sims3-package --base ORIGINAL` (issue 28): an edit written into a copy of the original
// package. The original here: the sample package's name map, RIG and CLIP (written by the sample's
// generator, not by rigport, so rigport re-encodes its clips differently), a second copy of the CLIP
// filed under another name's clip key, and a resource rigport does not read (made-up bytes under a
// texture's type, 0x00B2D882). Its .glb (rigport's own export) with one clip's first rotation key
// turned 30° is written back with --base: every resource keeps its key and place; only the edited
// clip's bytes change; the unedited clip, the RIG, the name map and the foreign resource are
// byte-identical to the original's, compression included.
#include <gtest/gtest.h>

#include <fstream>

#include <glm/gtc/quaternion.hpp>
#include <tiny_gltf.h>

#include "formats/sims3/clip_resource_key.hpp"
#include "formats/sims3/dbpf_layout.hpp"
#include "formats/sims3/package.hpp"
#include "support/gltf_edit.hpp"
#include "support/gltf_pose.hpp"
#include "support/sims3_resources.hpp"
#include "support/test_support.hpp"

namespace rigport {
namespace {

constexpr uint32_t kForeignType = 0x00B2D882;  // a texture's type: a resource rigport lists but does not read
const char* const kSecondClip = "a_second_x";

void writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

std::string originalPackage(const std::string& dir) {
  std::vector<sims3::PackageResource> resources = test::sims3SampleResources();
  std::vector<std::pair<uint64_t, std::string>> names;
  sims3::PackageResource second;
  for (const sims3::PackageResource& r : resources) {
    if (r.type == sims3::dbpf::kTypeRig) names.emplace_back(r.instance, "synthRig");
    if (r.type != sims3::dbpf::kTypeClip) continue;
    names.emplace_back(r.instance, "a_synthetic_test_x");
    second = r;
  }
  const sims3::ClipKey64 key = sims3::clipKey(kSecondClip);
  second.group = key.group;
  second.instance = key.instance;
  names.emplace_back(key.instance, kSecondClip);
  resources.push_back(second);
  for (sims3::PackageResource& r : resources) {
    if (r.type == sims3::dbpf::kTypeNameMap) r = sims3::PackageResource::make(r.type, r.group, r.instance, sims3::serializeNameMap(names), false);
  }
  std::vector<uint8_t> foreign(300);
  for (size_t i = 0; i < foreign.size(); ++i) foreign[i] = static_cast<uint8_t>(i * 7 + 3);
  resources.push_back(sims3::PackageResource::make(kForeignType, 0, 0x1122334455667788ull, foreign, true));
  const std::string path = dir + "/original.package";
  writeFile(path, sims3::serializePackage(resources));
  return path;
}

// The first rotation key of the first rotation channel of the clip filed under `clip` in the package
// (extras.sims3.resource.name: both clips keep the CLIP's internal name as their animation name)
// turned by 30° about x.
void turnFirstKey(tinygltf::Model& m, const std::string& clip) {
  for (const tinygltf::Animation& a : m.animations) {
    const tinygltf::Value& filedAs = a.extras.Get("sims3").Get("resource").Get("name");
    if (!filedAs.IsString() || filedAs.Get<std::string>() != clip) continue;
    for (const tinygltf::AnimationChannel& c : a.channels) {
      if (c.target_path != "rotation") continue;
      const tinygltf::Accessor& acc = m.accessors.at(static_cast<size_t>(a.samplers.at(static_cast<size_t>(c.sampler)).output));
      const tinygltf::BufferView& view = m.bufferViews.at(static_cast<size_t>(acc.bufferView));
      float* q = reinterpret_cast<float*>(m.buffers.at(static_cast<size_t>(view.buffer)).data.data() + view.byteOffset + acc.byteOffset);
      const glm::quat turned = glm::quat(q[3], q[0], q[1], q[2]) * glm::angleAxis(glm::radians(30.0f), glm::vec3(1, 0, 0));
      q[0] = turned.x;
      q[1] = turned.y;
      q[2] = turned.z;
      q[3] = turned.w;
      return;
    }
  }
  ADD_FAILURE() << "no rotation channel in clip " << clip;
}

struct Stored {
  uint32_t type, group;
  uint64_t instance;
  uint16_t compression;
  std::vector<uint8_t> bytes;
};

std::vector<Stored> storedResources(const std::string& path) {
  const std::vector<uint8_t> bytes = test::readBytes(path);
  ByteReader r(bytes);
  auto entries = sims3::parsePackageIndex(r);
  EXPECT_TRUE(entries.ok()) << (entries.ok() ? "" : entries.error().describe());
  std::vector<Stored> out;
  for (const sims3::PackageEntry& e : entries.ok() ? *entries : std::vector<sims3::PackageEntry>{}) {
    out.push_back({e.type, e.group, e.instance, e.compression, {bytes.begin() + e.offset, bytes.begin() + e.offset + e.fileSize}});
  }
  return out;
}

TEST(Sims3Base, OnlyTheEditedClipChangesInTheCopyOfTheOriginal) {
  const std::string dir = test::scratchDir("sims3_base");
  const std::string original = originalPackage(dir);
  const test::CliRun exported = test::runCli("convert " + test::quote(original) + " --merge -o " + test::quote(dir + "/original.glb"));
  ASSERT_EQ(exported.code, 0) << exported.text;
  tinygltf::Model model = test::loadGlbModel(dir + "/original.glb");
  turnFirstKey(model, kSecondClip);
  test::save(model, dir + "/edited.glb");

  const test::CliRun run = test::runCli("convert " + test::quote(dir + "/edited.glb") + " --to sims3-package --base " + test::quote(original) +
                                        " -o " + test::quote(dir + "/edited.package"));
  ASSERT_EQ(run.code, 0) << run.text;
  const std::vector<Stored> before = storedResources(original);
  const std::vector<Stored> after = storedResources(dir + "/edited.package");
  ASSERT_EQ(after.size(), before.size());
  const sims3::ClipKey64 edited = sims3::clipKey(kSecondClip);
  for (size_t i = 0; i < before.size(); ++i) {
    const Stored& b = before[i];
    const Stored& a = after[i];
    ASSERT_EQ(std::tie(a.type, a.group, a.instance), std::tie(b.type, b.group, b.instance)) << "resource " << i << " moved or was re-keyed";
    EXPECT_EQ(a.compression, b.compression) << "resource " << i;
    if (b.type == sims3::dbpf::kTypeClip && b.instance == edited.instance) {
      EXPECT_NE(a.bytes, b.bytes) << "the edited clip was not replaced";
    } else {
      EXPECT_EQ(a.bytes, b.bytes) << "resource " << i << " (type " << std::hex << b.type << ") is not byte-identical";
    }
  }
  // The edit itself reads back: the written package poses like the edited .glb.
  const test::CliRun same = test::runCli("compare " + test::quote(dir + "/edited.glb") + " " + test::quote(dir + "/edited.package"));
  EXPECT_EQ(same.code, 0) << same.text;
}

TEST(Sims3Base, IsRefusedForAFormatWrittenWholeAndForAFileThatIsNoPackage) {
  const std::string dir = test::scratchDir("sims3_base_refused");
  const std::string original = originalPackage(dir);
  ASSERT_EQ(test::runCli("convert " + test::quote(original) + " --merge -o " + test::quote(dir + "/rig.glb")).code, 0);
  const test::CliRun drs = test::runCli("convert " + test::quote(dir + "/rig.glb") + " --to battleforge-drs --base " + test::quote(original) +
                                        " -o " + test::quote(dir + "/rig.drs"));
  EXPECT_EQ(drs.code, 2) << drs.text;
  EXPECT_NE(drs.text.find("formats that take --base: "), std::string::npos) << drs.text;
  for (const char* format : {"renderware-dff", "sims3-package"}) EXPECT_NE(drs.text.find(format), std::string::npos) << drs.text;
  // A .glb given as the original is no package: refused, nothing written.
  const test::CliRun glb = test::runCli("convert " + test::quote(dir + "/rig.glb") + " --to sims3-package --base " + test::quote(dir + "/rig.glb") +
                                        " -o " + test::quote(dir + "/out.package"));
  EXPECT_EQ(glb.code, 1) << glb.text;
  EXPECT_NE(glb.text.find("DBPF"), std::string::npos) << glb.text;
  EXPECT_FALSE(std::ifstream(dir + "/out.package").good());
}

}  // namespace
}  // namespace rigport
