// platform/paths.hpp: paths rigport makes from the user's are spelt as the user spelt theirs, the
// same on every system (std::filesystem joins with `\` on Windows).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "platform/paths.hpp"

namespace fs = std::filesystem;
using rigport::platform::besideSpelled;
using rigport::platform::spelledLike;

namespace {
constexpr bool kWindows = fs::path::preferred_separator == '\\';
std::string utf8(const fs::path& p) {
  const std::u8string s = p.u8string();
  return std::string(s.begin(), s.end());
}
}  // namespace

TEST(SpelledLike, AFolderWrittenWithSlashesGetsSlashesBetweenTheNewParts) {
  EXPECT_EQ(utf8(spelledLike((fs::path("/dev/null/out") / "sub" / "good.glb").lexically_normal(), "/dev/null/out")),
            "/dev/null/out/sub/good.glb");
  EXPECT_EQ(utf8(spelledLike((fs::path(".") / "good.glb").lexically_normal(), ".")), "good.glb");
}

TEST(SpelledLike, AFolderWrittenWithABackslashKeepsTheSystemsSpelling) {
  const fs::path made = fs::path("C:\\out") / "good.glb";
  EXPECT_EQ(spelledLike(made, "C:\\out"), made);
  if (kWindows) EXPECT_EQ(utf8(spelledLike(made, "C:\\out")), "C:\\out\\good.glb");
}

TEST(BesideSpelled, TheInputsFolderAsWrittenThenTheName) {
  EXPECT_EQ(besideSpelled("dir/sub/ped.dff", "PED.TXD"), "dir/sub/PED.TXD");
  EXPECT_EQ(besideSpelled("/abs//ped.dff", "ped.txd"), "/abs//ped.txd");
  EXPECT_EQ(besideSpelled("ped.dff", "ped.txd"), "./ped.txd");
  if (kWindows) {
    EXPECT_EQ(besideSpelled("C:\\games\\gta/ped.dff", "ped.txd"), "C:\\games\\gta/ped.txd");
    EXPECT_EQ(besideSpelled("C:\\games\\ped.dff", "ped.txd"), "C:\\games\\ped.txd");
    EXPECT_EQ(besideSpelled("C:ped.dff", "ped.txd"), "C:ped.txd");
  } else {
    // A backslash is part of a POSIX file name, not a separator.
    EXPECT_EQ(besideSpelled("dir/a\\ped.dff", "ped.txd"), "dir/ped.txd");
  }
}
