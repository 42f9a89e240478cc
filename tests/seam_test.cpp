// The reader seam (docs/architecture.md): the per-file memory budget every reader charges, error
// trails through nested reads, and assemble() choosing skeletons, filtering items and clips and
// reporting coverage.
#include <gtest/gtest.h>

#include "core/assemble.hpp"
#include "core/budget.hpp"
#include "export/json_report.hpp"
#include "formats/registry.hpp"
#include "support/test_support.hpp"

using namespace rigport;

namespace {

std::vector<uint8_t> rwSample(const std::string& name) { return test::readBytes(test::sample("renderware/" + name)); }

Result<Asset> readWith(const std::vector<uint8_t>& bytes, const std::string& name, ReadOptions options) {
  const auto source = Source::fromBytes(bytes, name);
  ReadContext ctx(options);
  return readAsset(*source, ctx);
}

// A rig with bones a, b, c (ids 0..2) and nothing else.
Rig chain(const std::string& name, std::vector<std::string> bones) {
  Rig rig;
  rig.name = name;
  for (size_t i = 0; i < bones.size(); ++i) {
    Bone b;
    b.name = bones[i];
    b.parent = static_cast<int32_t>(i) - 1;
    rig.skeleton.bones.push_back(b);
  }
  return rig;
}

ClipSet clipsOn(const std::string& name, std::vector<std::string> bones, std::vector<std::string> clipNames) {
  ClipSet set;
  set.name = name;
  for (const std::string& clip : clipNames) {
    Animation a;
    a.name = clip;
    a.duration = 1.0f;
    for (const std::string& bone : bones) {
      BoneTrack t;
      t.target.name = bone;
      t.rotation.times = {0.0f};
      t.rotation.values = {glm::quat(1, 0, 0, 0)};
      a.tracks.push_back(t);
    }
    set.animations.push_back(a);
  }
  return set;
}

}  // namespace

TEST(Budget, ParsesSizesAndRefusesPastTheLimit) {
  EXPECT_EQ(parseByteSize("1G"), 1ull << 30);
  EXPECT_EQ(parseByteSize("512M"), 512ull << 20);
  EXPECT_EQ(parseByteSize("64kib"), 64ull << 10);
  EXPECT_EQ(parseByteSize("123"), 123u);
  EXPECT_EQ(parseByteSize("lots"), 0u);
  EXPECT_EQ(parseByteSize("12Q"), 0u);
  EXPECT_EQ(parseByteSize("99999999999999999999G"), 0u);
  Budget b(100);
  EXPECT_TRUE(b.charge(60));
  EXPECT_FALSE(b.charge(41));
  EXPECT_EQ(b.used(), 60u) << "a refused charge is not added";
  EXPECT_TRUE(b.charge(40));
  EXPECT_FALSE(b.charge(1));
}

// Every reader charges what it allocates from counts in the file: below what a sample needs, each
// one stops with a TooLarge error that names the field, its offset and the budget.
TEST(Budget, EveryReaderStopsAtTheBudgetNamingTheField) {
  for (const char* file : {"synthetic_skin_rw36003.dff", "synthetic_skin_rw33002.dff", "synthetic_skin_rw36003_xbox_native.dff",
                           "synthetic_skin_rw36003.anm", "synthetic_skin_rw36003_compressed.anm", "synthetic_anims_anpk.ifp",
                           "synthetic_anims_anp3.ifp"}) {
    SCOPED_TRACE(file);
    const auto bytes = rwSample(file);
    ASSERT_TRUE(readWith(bytes, file, ReadOptions{})) << "reads with the default budget";
    auto limited = readWith(bytes, file, ReadOptions{.memoryLimit = 16});
    ASSERT_FALSE(limited);
    EXPECT_EQ(limited.error().code, ErrorCode::TooLarge);
    EXPECT_NE(limited.error().message.find("budget"), std::string::npos) << limited.error().describe();
    EXPECT_FALSE(limited.error().path.empty()) << limited.error().describe();
    EXPECT_TRUE(limited.error().offset.has_value()) << limited.error().describe();
  }
}

// A forged vertex count that the remaining bytes cannot hold is refused before any allocation.
TEST(Budget, ForgedCountIsAnErrorNotAnAllocation) {
  auto bytes = rwSample("synthetic_skin_rw36003.dff");
  auto rig = readWith(bytes, "x.dff", ReadOptions{});
  ASSERT_TRUE(rig);
  const size_t vertices = rig->rigs[0].vertexCount();
  // The Geometry struct holds {format, numTriangles, numVertices, numMorphTargets}: find numVertices.
  const uint8_t want[4] = {static_cast<uint8_t>(vertices), 0, 0, 0};
  size_t at = 0;
  for (size_t i = 0; i + 12 <= bytes.size(); ++i) {
    if (bytes[i + 8] == want[0] && bytes[i + 9] == 0 && bytes[i + 10] == 0 && bytes[i + 11] == 0 && bytes[i + 12] == 1 &&
        bytes[i + 13] == 0 && bytes[i + 14] == 0 && bytes[i + 15] == 0) {
      at = i + 8;
      break;
    }
  }
  ASSERT_NE(at, 0u) << "numVertices not found";
  bytes[at + 3] = 0x40;  // 0x4000000E vertices
  auto forged = readWith(bytes, "x.dff", ReadOptions{});
  ASSERT_FALSE(forged);
  EXPECT_EQ(forged.error().code, ErrorCode::TooLarge) << forged.error().describe();
  EXPECT_TRUE(forged.error().offset.has_value());
}

TEST(ErrorTrail, NestedReadsAddTheirFrameOutsideTheInnerTrail) {
  auto dff = rwSample("synthetic_skin_rw36003.dff");
  dff.resize(dff.size() / 2);
  const auto inner = Source::fromBytes(dff, "pack#7");
  ReadContext ctx = fileReadContext("pack.bin", ReadOptions{});
  auto nested = ctx.readNested(*inner, "renderware-dff", ErrorFrame{"entry 7", 0x40});
  ASSERT_FALSE(nested);
  const Error& e = nested.error();
  const auto trail = e.trail();
  ASSERT_EQ(trail.size(), 2u) << e.describe();
  EXPECT_EQ(trail[0].where, "entry 7");
  EXPECT_EQ(trail[0].offset, 0x40u);
  EXPECT_FALSE(trail[1].where.empty());
  EXPECT_TRUE(trail[1].offset.has_value());
  EXPECT_EQ(e.describe().rfind("entry 7 (at 0x40) > ", 0), 0u) << e.describe();
  const auto json = errorToJson(e);
  ASSERT_EQ(json["trail"].size(), 2u);
  EXPECT_EQ(json["trail"][0]["where"], "entry 7");
  EXPECT_EQ(json["trail"][0]["offset"], 0x40);
  EXPECT_EQ(json["code"], "truncated");

  ReadContext shallow = fileReadContext("pack.bin", ReadOptions{.maxDepth = 0});
  auto deep = shallow.readNested(*inner, "renderware-dff", ErrorFrame{"entry 7", 0x40});
  ASSERT_FALSE(deep);
  EXPECT_EQ(deep.error().code, ErrorCode::TooLarge);

  ReadContext forbidden;  // a caller that allows no nested reads
  EXPECT_FALSE(forbidden.readNested(*inner, "", ErrorFrame{"entry 7", 0x40}));
}

TEST(Assemble, ClipsPlayOnTheSkeletonTheyWantElseTheBestCovered) {
  Asset asset;
  asset.provenance.file = "pack";
  asset.rigs = {chain("small", {"a", "b"}), chain("big", {"a", "b", "c", "d"}), chain("other", {"x"})};
  asset.clips.push_back(clipsOn("walk", {"a", "b", "c"}, {"walk"}));
  asset.clips.push_back(clipsOn("wave", {"x"}, {"wave"}));
  asset.clips[1].wants = SkeletonKey{"small", ""};  // wants one it barely covers: the wish wins
  auto out = assemble(asset, {}, nullptr, {});
  ASSERT_TRUE(out) << out.error().describe();
  ASSERT_EQ(out->size(), 3u) << "one rig per clip set, and the rig no clip set played on";
  EXPECT_EQ((*out)[0].rig.name, "walk");
  EXPECT_EQ((*out)[0].rig.skeleton.bones.size(), 4u) << "best coverage: 'big'";
  EXPECT_EQ((*out)[0].coverage.bound, 3u);
  EXPECT_EQ((*out)[1].rig.name, "wave");
  EXPECT_EQ((*out)[1].rig.skeleton.bones.size(), 2u) << "the skeleton it wants";
  EXPECT_EQ((*out)[1].coverage.bound, 0u);
  ASSERT_EQ((*out)[1].coverage.dropped.size(), 1u);
  EXPECT_EQ((*out)[2].rig.name, "other");

  // The user's skeleton beats both.
  const Rig user = chain("user", {"x", "a"});
  auto chosen = assemble(asset, {}, &user, {});
  ASSERT_TRUE(chosen);
  EXPECT_EQ((*chosen)[0].rig.skeleton.bones[0].name, "x");
  EXPECT_EQ((*chosen)[1].rig.skeleton.bones[0].name, "x");
}

TEST(Assemble, ItemsAndClipsSelectAndClipsWithoutASkeletonAreRefused) {
  Asset clipsOnly;
  clipsOnly.provenance.file = "pack.ifp";
  clipsOnly.clips.push_back(clipsOn("pack", {"a"}, {"walk", "run"}));
  clipsOnly.clips[0].provenance.format = "gta-ifp";
  auto refused = assemble(clipsOnly, {}, nullptr, {});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::Usage);
  EXPECT_NE(refused.error().message.find("--skeleton"), std::string::npos);

  const Rig skeleton = chain("ped", {"a"});
  auto one = assemble(clipsOnly, {}, &skeleton, AssembleOptions{.clips = {"run"}});
  ASSERT_TRUE(one) << one.error().describe();
  ASSERT_EQ(one->size(), 1u);
  ASSERT_EQ((*one)[0].rig.animations.size(), 1u);
  EXPECT_EQ((*one)[0].rig.animations[0].name, "run");
  EXPECT_FALSE(assemble(clipsOnly, {}, &skeleton, AssembleOptions{.clips = {"swim"}}));

  Asset models;
  models.rigs = {chain("a", {"root"}), chain("b", {"root"})};
  auto picked = assemble(models, {}, nullptr, AssembleOptions{.items = {"b"}});
  ASSERT_TRUE(picked);
  ASSERT_EQ(picked->size(), 1u);
  EXPECT_EQ((*picked)[0].rig.name, "b");
  auto none = assemble(models, {}, nullptr, AssembleOptions{.items = {"c"}});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("no item"), std::string::npos);
}

// --anim clips bind onto every rig of the input, each re-resolved against that rig.
TEST(Assemble, ExtraClipsBindOntoEveryRigAndReportCoverage) {
  Asset models;
  models.rigs = {chain("a", {"hip", "knee"}), chain("b", {"knee", "hip", "toe"})};
  const std::vector<ClipSet> extras{clipsOn("walk", {"hip", "knee", "tail"}, {"walk"})};
  auto out = assemble(models, extras, nullptr, {});
  ASSERT_TRUE(out);
  ASSERT_EQ(out->size(), 2u);
  for (const AssembledRig& r : *out) {
    EXPECT_EQ(r.coverage.tracks, 3u);
    EXPECT_EQ(r.coverage.bound, 2u);
    ASSERT_EQ(r.rig.animations.size(), 1u);
    for (const BoneTrack& t : r.rig.animations[0].tracks) {
      EXPECT_EQ(r.rig.skeleton.bones[static_cast<size_t>(t.bone)].name, t.target.name);
    }
    EXPECT_NE(r.coverage.summary().find("2 of 3 tracks"), std::string::npos) << r.coverage.summary();
    EXPECT_NE(r.coverage.summary().find("'tail'"), std::string::npos) << r.coverage.summary();
  }
}

// assembleTaking() moves the --anim clips onto the last rig instead of copying them (issue 30: the
// copy of a 1,000-clip IFP was a fifth of its conversion). What it gives must be what assemble()
// gives: the same rigs, names, keys in each rig's axes, coverage and warnings in the same order, on
// an input with clip sets and rigs, extras in other axes, and --clip picking from all of them.
TEST(Assemble, ExtraClipsGivenUpAssembleAsCopiedOnes) {
  Asset asset;
  asset.provenance.file = "pack";
  asset.provenance.warn("input-warning", "kept after the bound clips' warnings");
  asset.rigs = {chain("big", {"a", "b", "c"}), chain("other", {"x", "a"})};
  asset.clips.push_back(clipsOn("set", {"a", "b", "zz"}, {"walk", "run"}));
  std::vector<ClipSet> extras{clipsOn("extra", {"a", "x", "tail"}, {"walk", "wave"}), clipsOn("more", {"b"}, {"walk"})};
  extras[0].provenance.axes.up = AxisSystem::Up::Z;  // RenderWare's: keys move into each rig's (glTF) axes
  extras[0].provenance.axes.forward = AxisSystem::Axis::PosY;
  extras[0].animations[0].tracks[0].translation.times = {0.0f};
  extras[0].animations[0].tracks[0].translation.values = {glm::vec3(1, 2, 3)};
  const AssembleOptions options{.clips = {"walk", "wave"}};

  auto copied = assemble(asset, extras, nullptr, options);
  auto taken = assembleTaking(asset, std::move(extras), nullptr, options);
  ASSERT_TRUE(copied) << copied.error().describe();
  ASSERT_TRUE(taken) << taken.error().describe();
  ASSERT_EQ(copied->size(), 2u) << "the clip set's rig ('big') and 'other'";
  ASSERT_EQ(taken->size(), copied->size());
  for (size_t r = 0; r < copied->size(); ++r) {
    const Rig& c = (*copied)[r].rig;
    const Rig& t = (*taken)[r].rig;
    EXPECT_EQ(t.name, c.name);
    EXPECT_EQ((*taken)[r].coverage.summary(), (*copied)[r].coverage.summary());
    ASSERT_EQ(t.provenance.warnings.size(), c.provenance.warnings.size()) << r;
    for (size_t w = 0; w < c.provenance.warnings.size(); ++w) {
      EXPECT_EQ(t.provenance.warnings[w].code, c.provenance.warnings[w].code);
      EXPECT_EQ(t.provenance.warnings[w].message, c.provenance.warnings[w].message);
    }
    ASSERT_EQ(t.animations.size(), c.animations.size());
    for (size_t a = 0; a < c.animations.size(); ++a) {
      EXPECT_EQ(t.animations[a].name, c.animations[a].name);
      ASSERT_EQ(t.animations[a].tracks.size(), c.animations[a].tracks.size());
      for (size_t k = 0; k < c.animations[a].tracks.size(); ++k) {
        EXPECT_EQ(t.animations[a].tracks[k].bone, c.animations[a].tracks[k].bone);
        EXPECT_EQ(t.animations[a].tracks[k].translation.values, c.animations[a].tracks[k].translation.values);
      }
    }
  }
  // Both rigs play walk from 'extra' and 'more', wave from 'extra'; the first also its own walk.
  EXPECT_EQ((*copied)[0].rig.name, "set");
  EXPECT_EQ((*copied)[0].rig.animations.size(), 4u);
  EXPECT_EQ((*copied)[1].rig.animations.size(), 3u);
  const Animation& walk = (*taken)[1].rig.animations[0];
  ASSERT_FALSE(walk.tracks.empty());
  EXPECT_EQ(walk.tracks[0].translation.values, std::vector<glm::vec3>{glm::vec3(-1, 3, 2)}) << "Z up, +Y forward to glTF";
  EXPECT_EQ((*copied)[0].rig.provenance.warnings.back().code, "input-warning");
}
