// `rigport view` as a user meets it: one self-contained page per run holding each model's .glb,
// the default page name, the convert-path errors (animation-only input, bad file) and exit codes.
// What the page shows in a browser is tests/view_page.cmake's job (headless Chromium).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/test_support.hpp"

namespace fs = std::filesystem;
using rigport::test::quote;
using rigport::test::sample;
using rigport::test::scratchDir;

namespace {

int view(const std::string& args, std::string* output = nullptr, const std::string& cwd = ".") {
  rigport::test::CliRun r = rigport::test::runCliIn(cwd, "view " + args);
  if (output != nullptr) *output = std::move(r.text);
  return r.code;
}

std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The base64 payloads of the page's embedded models, decoded (found by hand: std::regex recurses
// per character and overflows the stack on a large payload).
std::vector<std::string> embeddedGlbs(const std::string& html) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const std::string open = "<script type=\"application/octet-stream\" class=\"rigport-model\" data-name=\"";
  std::vector<std::string> out;
  for (size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    const size_t begin = html.find("\">", at + open.size()) + 2;
    const size_t end = html.find("</script>", begin);
    std::string bytes;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = begin; i < end && html[i] != '='; ++i) {
      const size_t v = kAlphabet.find(html[i]);
      if (v == std::string::npos) return {};  // not base64: the caller's size check fails
      acc = (acc << 6) | static_cast<uint32_t>(v);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        bytes.push_back(static_cast<char>((acc >> bits) & 0xff));
      }
    }
    out.push_back(bytes);
  }
  return out;
}

const std::string kDff = sample("renderware/synthetic_skin_rw36003.dff");
const std::string kAnm = sample("renderware/synthetic_skin_rw36003.anm");

}  // namespace

TEST(CliView, WritesOneSelfContainedPageWithEachModelsGlb) {
  const std::string dir = scratchDir("cli_view_page");
  const fs::path page = fs::path(dir) / "both.html";
  std::string out;
  ASSERT_EQ(view(quote(kDff) + " --anim " + quote(kAnm) + " --demo -o " + quote(page.string()), &out), 0) << out;
  const std::string html = readText(page);
  EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u);
  // The viewer is inlined: no script or stylesheet is fetched from anywhere.
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_NE(html.find("rigportView"), std::string::npos) << "the bundled viewer is missing";
  const auto glbs = embeddedGlbs(html);
  ASSERT_EQ(glbs.size(), 2u);
  for (const std::string& glb : glbs) {
    ASSERT_GE(glb.size(), 20u);
    EXPECT_EQ(glb.substr(0, 4), "glTF");
    EXPECT_NE(glb.find("\"animations\""), std::string::npos) << "the --anim clip (and the demo's walk) must be in the .glb";
  }
  EXPECT_NE(glbs[0].find("renderware-dff"), std::string::npos);
}

TEST(CliView, DefaultPageIsTheFirstInputsStemInTheCurrentFolder) {
  const std::string dir = scratchDir("cli_view_default");
  std::string out;
  ASSERT_EQ(view(quote(kDff), &out, dir), 0) << out;
  EXPECT_TRUE(fs::exists(fs::path(dir) / "synthetic_skin_rw36003.html")) << out;
}

TEST(CliView, AnimationOnlyInputIsRefusedAndNoPageIsWritten) {
  const std::string dir = scratchDir("cli_view_anim_only");
  std::string out;
  EXPECT_EQ(view(quote(kAnm), &out, dir), 1);
  EXPECT_NE(out.find("carry no skeleton"), std::string::npos) << out;
  EXPECT_NE(out.find("--skeleton"), std::string::npos) << out;
  EXPECT_TRUE(fs::is_empty(dir)) << "no page for a failed run";
}

TEST(CliView, ABadInputAmongGoodOnesStillWritesThePageButExitsOne) {
  const std::string dir = scratchDir("cli_view_partial");
  { std::ofstream(fs::path(dir) / "garbage.dff") << "not a clump"; }
  std::string out;
  EXPECT_EQ(view(quote(kDff) + " garbage.dff -o page.html", &out, dir), 1);
  EXPECT_NE(out.find("garbage.dff"), std::string::npos) << out;
  EXPECT_EQ(embeddedGlbs(readText(fs::path(dir) / "page.html")).size(), 1u);
}

TEST(CliView, NothingToViewIsAUsageError) {
  std::string out;
  EXPECT_EQ(view("", &out), 2) << out;
}

// Clips given alone play on the skeleton named with --skeleton, in the page as in convert.
TEST(CliView, AnIfpGivenAloneIsShownOnTheSkeletonItNames) {
  const std::string dir = scratchDir("cli_view_ifp");
  const fs::path page = fs::path(dir) / "ifp.html";
  const std::string ifp = sample("renderware/synthetic_anims_anp3.ifp");
  std::string out;
  ASSERT_EQ(view(quote(ifp) + " --skeleton " + quote(kDff) + " -o " + quote(page.string()), &out), 0) << out;
  const auto glbs = embeddedGlbs(readText(page));
  ASSERT_EQ(glbs.size(), 1u);
  for (const char* clip : {"\"walk_c\"", "\"wave_c\""}) EXPECT_NE(glbs[0].find(clip), std::string::npos) << clip;
  EXPECT_NE(glbs[0].find("\"skins\""), std::string::npos) << "the skeleton's skin comes along";
}
