// GTA bone-name aliases (issue 13): IFP tracks without a bone id that name a bone the way another
// game or package does ("Root" for "Normal", "R Fingers" for "R Finger") bind to it; what matches no
// bone under any name is still reported as unbound.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/bind.hpp"
#include "formats/renderware/renderware.hpp"
#include "support/ifp_builder.hpp"

using namespace rigport;

namespace {

Rig ped() {
  Rig rig;
  for (const char* name : {"Normal", " Pelvis", "R Finger", "L Finger"}) {
    Bone b;
    b.name = name;
    b.parent = rig.skeleton.bones.empty() ? -1 : 0;
    rig.skeleton.bones.push_back(b);
  }
  return rig;
}

TEST(GtaIfpAliases, TracksNamedTheOtherGamesWayBindAndTheRestIsReported) {
  const std::vector<test::IfpClip> clips = {
      {"idle", {{"Root", -1, {0, 30}}, {"R Fingers", -1, {0}}, {"l fingers ", -1, {0}}, {"Pelvis", -1, {0}}, {"Tail", -1, {0}}}}};
  auto ifp = renderware::readIfp(test::buildAnp3("ped", clips));
  ASSERT_TRUE(ifp.ok()) << ifp.error().describe();
  EXPECT_EQ(ifp->animations.at(0).tracks.at(0).target.aliases, std::vector<std::string>{"Normal"});
  Rig rig = ped();
  ASSERT_TRUE(bindAnimations(rig, std::move(ifp->animations)));
  const Animation& anim = rig.animations.at(0);
  std::vector<std::string> bound;
  for (const BoneTrack& t : anim.tracks) bound.push_back(rig.skeleton.bones.at(static_cast<size_t>(t.bone)).name);
  EXPECT_EQ(bound, (std::vector<std::string>{"Normal", "R Finger", "L Finger", " Pelvis"}));
  const auto& w = rig.provenance.warnings;
  auto unbound = std::find_if(w.begin(), w.end(), [](const Warning& x) { return x.code == "unbound-track"; });
  ASSERT_NE(unbound, w.end());
  EXPECT_NE(unbound->message.find("'Tail'"), std::string::npos) << unbound->message;
}

// The name itself wins over an alias: a skeleton with both "Root" and "Normal" binds "Root" to "Root".
TEST(GtaIfpAliases, AnAliasIsTriedOnlyAfterTheName) {
  Rig rig = ped();
  Bone root;
  root.name = "Root";
  root.parent = 0;
  rig.skeleton.bones.push_back(root);
  Animation anim;
  BoneTrack t;
  t.target.name = "Root";
  t.target.aliases = {"Normal"};
  t.rotation.times = {0.0f};
  t.rotation.values = {glm::quat(1, 0, 0, 0)};
  anim.tracks.push_back(t);
  ASSERT_TRUE(bindAnimations(rig, {anim}));
  EXPECT_EQ(rig.animations.at(0).tracks.at(0).bone, 4);
}

}  // namespace
