// The Sims 3 rigs and clips as a user meets them in real packages (issue 26), on synthetic packages
// built here from the project's own samples and writers:
//   - a RIG with a clip and no mesh is exported with a skin of every bone (real rigs carry no mesh;
//     without a skin Blender imports empties and rigport cannot read its own .glb back);
//   - a clip is not bound to an unrelated object RIG that holds almost none of its tracks (a real
//     package bound 112-track clips to an object rig at 1 of 112: no animation, exit 0);
//   - --item takes a package's TYPE:GROUP:INSTANCE ids and the name a RIG stores; writing a package
//     back keeps each clip's key and adds no RIG the input did not have (real clips' keys are not
//     their names', and their groups cannot be derived);
//   - `info` counts the keys a CLIP stores (constant channels store none), `dump` shows the clip's
//     actor, source, frame count and IK chains.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <tiny_gltf.h>

#include "core/hash.hpp"
#include "formats/registry.hpp"
#include "formats/sims3/dbpf_layout.hpp"
#include "formats/sims3/package.hpp"
#include "formats/sims3/sims3.hpp"
#include "support/gltf_pose.hpp"
#include "support/gltf_validator.hpp"
#include "support/test_support.hpp"

namespace rigport {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using sims3::PackageResource;

std::string s3(const std::string& name) { return test::sample("sims3/" + name); }
const std::string kClip = "synthetic_a_synthetic_test_x.clip";  // 4 bone tracks (b__ROOT__, bind, Pelvis, Spine0), 1 morph
constexpr uint64_t kClipInstance = 0x2643EC3DB99F3F8Cull;      // its name's clip key (SOURCES.md)

void writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

struct Named {
  PackageResource resource;
  std::string name;  // for the name map; empty: none
};

// A package of these resources and a name map of their names.
std::string package(const std::string& path, std::vector<Named> entries) {
  std::vector<std::pair<uint64_t, std::string>> names;
  std::vector<PackageResource> resources;
  for (Named& e : entries) {
    if (!e.name.empty()) names.emplace_back(e.resource.instance, e.name);
    resources.push_back(std::move(e.resource));
  }
  resources.insert(resources.begin(), PackageResource::make(sims3::dbpf::kTypeNameMap, 0, 0, sims3::serializeNameMap(names), false));
  writeFile(path, sims3::serializePackage(resources));
  return path;
}

Named clipResource(uint32_t group = 0, uint64_t instance = kClipInstance, std::string name = "a_synthetic_test_x") {
  return {PackageResource::make(sims3::dbpf::kTypeClip, group, instance, test::readBytes(s3(kClip)), true), std::move(name)};
}

Named rigResource(const Rig& rig, uint64_t instance, std::string name) {
  auto bytes = sims3::writeRig(rig);
  EXPECT_TRUE(bytes) << bytes.error().describe();
  return {PackageResource::make(sims3::dbpf::kTypeRig, 0, instance, bytes ? *bytes : std::vector<uint8_t>{}, false), std::move(name)};
}

Rig synthRig() {
  auto asset = loadAsset(s3("synthetic_synthRig.rig"));
  EXPECT_TRUE(asset) << asset.error().describe();
  return asset ? asset->rigs.at(0) : Rig{};
}

// An object rig (a lid on a box), as real packages carry beside Sim clips: of the clip's four bone
// tracks only b__ROOT__ is one of its bones.
Rig objectRig() {
  Rig rig;
  rig.name = "objRig";
  for (const char* name : {"b__ROOT__", "objBox", "objLid"}) {
    Bone b;
    b.name = name;
    b.parent = rig.skeleton.bones.empty() ? -1 : static_cast<int32_t>(rig.skeleton.bones.size()) - 1;
    b.translation = glm::vec3(0.0f, 0.2f, 0.0f);
    rig.skeleton.bones.push_back(b);
  }
  return rig;
}

std::set<std::string> animatedNodes(const tinygltf::Model& m) {
  std::set<std::string> out;
  for (const auto& a : m.animations)
    for (const auto& c : a.channels) out.insert(m.nodes.at(static_cast<size_t>(c.target_node)).name);
  return out;
}

// Every warning message of a `convert --json` run, one a line.
std::string warningsOf(const test::CliRun& run) {
  const Json j = Json::parse(run.text, nullptr, false);
  std::string out;
  if (j.is_discarded() || !j.contains("files")) return run.text;
  for (const Json& f : j["files"])
    for (const Json& w : f["warnings"]) out += w["message"].get<std::string>() + "\n";
  return out;
}

ClipSet readClipFile(const std::string& path) {
  auto asset = loadAsset(path);
  EXPECT_TRUE(asset) << asset.error().describe();
  return asset && asset->clips.size() == 1 ? asset->clips[0] : ClipSet{};
}

const BoneTrack* trackOf(const Animation& a, uint64_t hash) {
  for (const BoneTrack& t : a.tracks)
    if (t.target.nameHash == hash) return &t;
  return nullptr;
}

template <class T>
void expectSameKeys(const Keys<T>& want, const Keys<T>& got, double tolerance, const std::string& what) {
  ASSERT_EQ(got.times.size(), want.times.size()) << what;
  for (size_t k = 0; k < want.times.size(); ++k) {
    EXPECT_NEAR(got.times[k], want.times[k], 1e-4) << what << " key " << k;
    for (int c = 0; c < T::length(); ++c) EXPECT_NEAR(got.values[k][c], want.values[k][c], tolerance) << what << " key " << k;
  }
}

std::vector<ItemInfo> itemsOf(const std::string& path) {
  auto items = listItems(path);
  EXPECT_TRUE(items) << items.error().describe();
  return items ? *items : std::vector<ItemInfo>{};
}

// Real RIGs carry no mesh. The clip's rig is exported as an armature: one skin of every bone, joint
// world x inverse bind = identity, validator-clean; and `--to sims3-clip` reads that .glb back as
// the clip it came from (same tracks, same key times, values within the CLIP's quantisation).
TEST(Sims3Binding, RigWithClipAndNoMeshGetsASkinAndConvertsBackToTheClip) {
  const std::string dir = test::scratchDir("sims3_bind_skin");
  const Rig rig = synthRig();
  const std::string pkg = package(dir + "/rig_clip.package", {clipResource(), rigResource(rig, fnv1_64Lower("synthRig"), "synthRig")});
  const test::CliRun run = test::runCli("convert " + test::quote(pkg) + " -o " + test::quote(dir + "/out"));
  ASSERT_EQ(run.code, 0) << run.text;
  const std::string glb = dir + "/out/rig_clip.glb";
  const test::ValidatorRun v = test::validateGltfFile(glb);
  EXPECT_TRUE(v.ok) << v.output;
  const tinygltf::Model m = test::loadGlbModel(glb);
  EXPECT_TRUE(m.meshes.empty());
  ASSERT_EQ(m.skins.size(), 1u);
  std::set<std::string> joints;
  for (int j : m.skins[0].joints) joints.insert(m.nodes.at(static_cast<size_t>(j)).name);
  EXPECT_EQ(joints, (std::set<std::string>{"b__ROOT__", "b__ROOT_bind__", "b__Pelvis__", "b__Spine0__"}));
  EXPECT_LT(test::worstRestPoseError(m), 1e-5f);
  ASSERT_EQ(m.animations.size(), 1u);

  const std::string back = dir + "/back.clip";
  const test::CliRun to = test::runCli("convert " + test::quote(glb) + " --to sims3-clip -o " + test::quote(back));
  ASSERT_EQ(to.code, 0) << to.text;
  const Animation want = readClipFile(s3(kClip)).animations.at(0);
  const Animation got = readClipFile(back).animations.at(0);
  ASSERT_EQ(got.tracks.size(), want.tracks.size());
  for (const BoneTrack& w : want.tracks) {
    const BoneTrack* g = trackOf(got, *w.target.nameHash);
    ASSERT_NE(g, nullptr) << std::hex << *w.target.nameHash;
    // 10-bit translations and 12-bit rotations, re-quantised over the same ranges: within 1e-3.
    expectSameKeys(w.translation, g->translation, 1e-3, "translation");
    expectSameKeys(w.rotation, g->rotation, 1e-3, "rotation");
  }
  ASSERT_EQ(got.scalars.size(), want.scalars.size());
  EXPECT_EQ(got.scalars[0].name, want.scalars[0].name);
}

// An object RIG holding 1 of the clip's 4 bone tracks: the clip keeps its own hash-named nodes (all
// 4 animated), with a warning giving the coverage and the skeleton; `info` says so. Named with
// --skeleton, the same rig is used, and the warning names it.
TEST(Sims3Binding, ClipBarelyCoveredByAnObjectRigKeepsItsOwnNodes) {
  const std::string dir = test::scratchDir("sims3_bind_coverage");
  const std::string pkg = package(dir + "/object.package", {clipResource(), rigResource(objectRig(), 0x1111222233334444ull, "objRig")});
  const test::CliRun run =
      test::runCli("convert " + test::quote(pkg) + " --json -o " + test::quote(dir + "/out"), test::Capture::StdoutOnly);
  ASSERT_EQ(run.code, 0) << run.text;
  const std::string warnings = warningsOf(run);
  EXPECT_NE(warnings.find("1 of 4 tracks found on skeleton 'objRig'"), std::string::npos) << run.text;
  EXPECT_NE(warnings.find("kept on its own hash-named nodes"), std::string::npos) << run.text;
  // The clip's glb (the object rig is exported on its own beside it).
  const std::string glb = dir + "/out/object/a_synthetic_test_x.glb";
  ASSERT_TRUE(fs::exists(glb)) << run.text;
  EXPECT_TRUE(test::validateGltfFile(glb).ok);
  const tinygltf::Model m = test::loadGlbModel(glb);
  ASSERT_EQ(m.animations.size(), 1u);
  EXPECT_EQ(animatedNodes(m), (std::set<std::string>{"0xFEAE6981", "0x57884BB9", "0x556B181A", "0x6FA96266"}));

  const test::CliRun info = test::runCli("info " + test::quote(pkg) + " --json", test::Capture::StdoutOnly);
  ASSERT_EQ(info.code, 0) << info.text;
  const Json playsOn = Json::parse(info.text)[0]["clipSets"][0]["playsOn"];
  EXPECT_TRUE(playsOn["skeleton"].is_null()) << playsOn.dump();
  EXPECT_EQ(playsOn["best"], "objRig");
  EXPECT_EQ(playsOn["found"], 1);
  EXPECT_EQ(playsOn["tracks"], 4);

  const test::CliRun named = test::runCli("convert " + test::quote(pkg) + " --item a_synthetic_test_x --skeleton " +
                                              test::quote(pkg + "#objRig") + " --json -o " + test::quote(dir + "/named"),
                                          test::Capture::StdoutOnly);
  ASSERT_EQ(named.code, 0) << named.text;
  EXPECT_NE(warningsOf(named).find("binding to skeleton 'objRig': 1 of 4 tracks found"), std::string::npos) << named.text;
  EXPECT_EQ(animatedNodes(test::loadGlbModel(dir + "/named/object.glb")), (std::set<std::string>{"b__ROOT__"}));
}

// A RIG filed under a key that is no hash of its name, and named "objectRigFile" by the name map
// while it stores "objRig": --item takes its TYPE:GROUP:INSTANCE id, either name, and no
// `rig-key` warning fires (no rule ties a RIG's instance to its name).
TEST(Sims3Binding, ItemTakesThePackageIdAndTheNameTheRigStores) {
  const std::string dir = test::scratchDir("sims3_bind_item");
  const std::string pkg = package(dir + "/named.package", {rigResource(objectRig(), 0x0123456789ABCDEFull, "objectRigFile")});
  for (const std::string item : {"8EAF13DE:00000000:0123456789ABCDEF", "objRig", "objectRigFile"}) {
    const std::string out = dir + "/" + std::to_string(std::hash<std::string>{}(item)) + ".glb";
    const test::CliRun run = test::runCli("convert " + test::quote(pkg) + " --item " + item + " -o " + test::quote(out));
    ASSERT_EQ(run.code, 0) << item << "\n" << run.text;
    const tinygltf::Model m = test::loadGlbModel(out);
    ASSERT_EQ(m.skins.size(), 1u) << item;
    EXPECT_EQ(m.skins[0].joints.size(), 3u) << item;
  }
  const test::CliRun skeleton = test::runCli("convert " + test::quote(s3(kClip)) + " --skeleton " +
                                             test::quote(pkg + "#8EAF13DE:00000000:0123456789ABCDEF") + " -o " +
                                             test::quote(dir + "/clip.glb"));
  EXPECT_EQ(skeleton.code, 0) << skeleton.text;
  const test::CliRun info = test::runCli("info " + test::quote(pkg), test::Capture::StdoutOnly);
  ASSERT_EQ(info.code, 0) << info.text;
  EXPECT_EQ(info.text.find("rig-key"), std::string::npos) << info.text;
  EXPECT_NE(info.text.find("warnings        0"), std::string::npos) << info.text;
}

// A clip filed under a group and instance its name does not give: package -> glb -> package keeps
// that key and adds no RIG (the input had none); with a RIG, the RIG keeps its key too.
TEST(Sims3Binding, PackageRoundTripKeepsResourceKeysAndAddsNoRig) {
  const std::string dir = test::scratchDir("sims3_bind_keys");
  const std::string clipId = "6B20C4F3:70000000:1234567890ABCDEF";
  const std::string alone = package(dir + "/alone.package", {clipResource(0x70000000u, 0x1234567890ABCDEFull, "c_buff_override_x")});
  ASSERT_EQ(test::runCli("convert " + test::quote(alone) + " -o " + test::quote(dir + "/alone.glb")).code, 0);
  for (const std::string& input : {dir + "/alone.glb", alone}) {
    const std::string out = dir + "/back_" + fs::path(input).extension().string().substr(1) + ".package";
    const test::CliRun run = test::runCli("convert " + test::quote(input) + " --to sims3-package -o " + test::quote(out));
    ASSERT_EQ(run.code, 0) << input << "\n" << run.text;
    std::set<std::string> ids, kinds;
    for (const ItemInfo& i : itemsOf(out)) ids.insert(i.id), kinds.insert(i.kind);
    EXPECT_EQ(ids.count(clipId), 1u) << input;
    EXPECT_EQ(kinds.count("rig"), 0u) << input << ": a RIG the input did not have";
  }

  const std::string withRig =
      package(dir + "/with_rig.package", {clipResource(0x70000000u, 0x1234567890ABCDEFull, "c_buff_override_x"),
                                          rigResource(synthRig(), 0x0AAA0BBB0CCC0DDDull, "synthRig")});
  ASSERT_EQ(test::runCli("convert " + test::quote(withRig) + " -o " + test::quote(dir + "/with_rig.glb")).code, 0);
  const std::string out = dir + "/with_rig_back.package";
  ASSERT_EQ(test::runCli("convert " + test::quote(dir + "/with_rig.glb") + " --to sims3-package -o " + test::quote(out)).code, 0);
  std::map<std::string, std::string> nameOf;
  for (const ItemInfo& i : itemsOf(out)) nameOf[i.id] = i.name;
  EXPECT_EQ(nameOf.count(clipId), 1u);
  EXPECT_EQ(nameOf.count("8EAF13DE:00000000:0AAA0BBB0CCC0DDD"), 1u);
  EXPECT_EQ(nameOf["8EAF13DE:00000000:0AAA0BBB0CCC0DDD"], "synthRig");
  EXPECT_EQ(nameOf[clipId], "c_buff_override_x");
}

// The sample stores 13 key records (its s3py dump: 1 + 4 + 3 + 2 translation and rotation keys, 3
// morph keys) and three constant channels (R8) that store none; the model gives those a key each.
TEST(Sims3Binding, InfoCountsTheKeysTheClipStores) {
  const test::CliRun info = test::runCli("info " + test::quote(s3(kClip)) + " --json", test::Capture::StdoutOnly);
  ASSERT_EQ(info.code, 0) << info.text;
  EXPECT_EQ(Json::parse(info.text)[0]["clipSets"][0]["animations"][0]["keys"], 13) << info.text;
  // The text form's clip row: name, seconds, tracks, keys, events.
  const test::CliRun text = test::runCli("info " + test::quote(s3(kClip)), test::Capture::StdoutOnly);
  ASSERT_EQ(text.code, 0) << text.text;
  std::istringstream rows(text.text);
  std::vector<std::string> row;
  for (std::string line; std::getline(rows, line);) {
    std::istringstream fields(line);
    std::vector<std::string> f{std::istream_iterator<std::string>(fields), std::istream_iterator<std::string>()};
    if (!f.empty() && f[0] == "a_synthetic_test_x" && f.size() == 5) row = f;
  }
  ASSERT_EQ(row.size(), 5u) << text.text;
  EXPECT_EQ(row[2], "4") << text.text;
  EXPECT_EQ(row[3], "13") << text.text;
  const test::CliRun dump = test::runCli("dump " + test::quote(s3(kClip)), test::Capture::StdoutOnly);
  ASSERT_EQ(dump.code, 0) << dump.text;
  EXPECT_EQ(Json::parse(dump.text)["animations"][0]["keyCount"], 16) << "the model's keys: 13 stored + 3 constant";
}

// `dump` shows what a CLIP says beyond its keys: actor, source file, frame count, IK chains.
TEST(Sims3Binding, DumpPrintsTheClipsActorSourceFrameCountAndIkChains) {
  const std::string dir = test::scratchDir("sims3_bind_dump");
  Animation anim = readClipFile(s3(kClip)).animations.at(0);
  anim.extras["sims3"]["ikChains"] = Json::array({Json::array({Json{{"index", 2}, {"namespace", "x"}, {"bone", "b__R_Hand__"}}})});
  auto bytes = sims3::writeClipAnimation(anim, nullptr);
  ASSERT_TRUE(bytes) << bytes.error().describe();
  writeFile(dir + "/ik.clip", *bytes);
  const test::CliRun dump = test::runCli("dump " + test::quote(dir + "/ik.clip"), test::Capture::StdoutOnly);
  ASSERT_EQ(dump.code, 0) << dump.text;
  const Json s3 = Json::parse(dump.text)["animations"][0]["extras"]["sims3"];
  EXPECT_EQ(s3["actor"], "x") << s3.dump();
  EXPECT_EQ(s3["source"], "a_synthetic_test_x.blend");
  EXPECT_EQ(s3["frameCount"], 31);
  ASSERT_EQ(s3["ikChains"].size(), 1u);
  EXPECT_EQ(s3["ikChains"][0][0]["bone"], "b__R_Hand__");
  EXPECT_EQ(s3["ikChains"][0][0]["index"], 2);
}

}  // namespace
}  // namespace rigport
