// Faults a hostile or damaged file must not turn into harm (issue 25, "Faults the platform room must
// survive"): text from a file reaches the terminal escaped; a RefPack resource's forged size costs
// only what its bytes can make and leaves the budget to the intact resources after it. Fixtures are built by the
// project's own writers (package, RefPack).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/source.hpp"
#include "formats/registry.hpp"
#include "formats/sims3/package.hpp"
#include "formats/sims3/refpack.hpp"
#include "formats/sims3/sims3.hpp"
#include "support/sims3_resources.hpp"
#include "support/test_support.hpp"

namespace rigport {
namespace {

using namespace sims3;

constexpr uint32_t kTypeClip = 0x6B20C4F3;  // sims3_clip.md §4

// --- Text from a file, printed -------------------------------------------------------------------

// The OSC sequence a hostile name would use to retitle (or worse) the terminal showing the error.
const std::string kInjection = "\x1b]0;pwned\x07";

TEST(Printable, ControlCharactersBecomeHexEscapes) {
  EXPECT_EQ(printable(kInjection), "\\x1B]0;pwned\\x07");
  EXPECT_EQ(printable(std::string("a\nb\tc\x7f", 6)), "a\\x0Ab\\x09c\\x7F");
  EXPECT_EQ(printable(std::string("nul\0end", 7)), "nul\\x00end");
}

TEST(Printable, InvalidUtf8AndC1ControlsAreEscapedValidTextIsKept) {
  EXPECT_EQ(printable("Bj\xc3\xb6rn \xe2\x80\x94 \xe6\x97\xa5"), "Bj\xc3\xb6rn \xe2\x80\x94 \xe6\x97\xa5");  // ö, em dash, 日
  EXPECT_EQ(printable("\xff\xfe"), "\\xFF\\xFE");                  // never UTF-8
  EXPECT_EQ(printable("\x9b" "2J"), "\\x9B2J");                    // a lone 8-bit CSI
  EXPECT_EQ(printable("\xc2\x9b" "2J"), "\\xC2\\x9B2J");           // CSI as UTF-8 U+009B
  EXPECT_EQ(printable("\xc3"), "\\xC3");                           // a cut sequence
  EXPECT_EQ(printable("\xe0\x80\xaf"), "\\xE0\\x80\\xAF");         // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xED\\xA0\\x80");         // a surrogate
  EXPECT_EQ(printable(printable(kInjection + "\xff")), printable(kInjection + "\xff"));  // idempotent
}

TEST(Printable, DescribeEscapesEveryPartOfTheTrail) {
  Error e = makeError(ErrorCode::BadValue, "clip '" + kInjection + "' is broken");
  e.file = "a" + kInjection + ".package";
  e.path = "clips/" + kInjection;
  e.within(ErrorFrame{"entry " + kInjection, 4});
  const std::string line = e.describe();
  EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
  EXPECT_EQ(line.find('\x07'), std::string::npos) << line;
  EXPECT_EQ(line, "a\\x1B]0;pwned\\x07.package: entry \\x1B]0;pwned\\x07 (at 0x4) > clips/\\x1B]0;pwned\\x07: clip "
                  "'\\x1B]0;pwned\\x07' is broken");
}

// --- A forged RefPack size -----------------------------------------------------------------------

// A RefPack stream of a few bytes (one literal, then the end opcode) that declares `declared` bytes.
PackageResource forgedClip(uint32_t declared) {
  PackageResource p;
  p.type = kTypeClip;
  p.instance = 0xF0F0;
  p.stored = {0x90, 0xFB,  // 4-byte sizes, magic (sims3_clip.md §4)
              static_cast<uint8_t>(declared >> 24), static_cast<uint8_t>(declared >> 16), static_cast<uint8_t>(declared >> 8),
              static_cast<uint8_t>(declared), 0xFD, 'x'};  // end opcode with 1 literal byte
  p.memSize = declared;
  p.compression = 0xFFFF;
  return p;
}

Result<Asset> readWithLimit(std::vector<uint8_t> bytes, uint64_t limit, uint64_t* used) {
  auto source = Source::fromBytes(std::move(bytes), "forged.package");
  ReadOptions options;
  options.memoryLimit = limit;
  ReadContext ctx(options);
  auto asset = readPackage(*source, ctx);
  *used = ctx.budget().used();
  return asset;
}

// Issue 25: an 1,800-byte package cost 1.05 GB, and the spent budget made the intact clip after it
// be skipped. A declared size just under the limit reproduces both at a small scale.
TEST(RefPackForgedSize, CostsOnlyWhatItsBytesCanMakeAndTheIntactClipAfterItIsRead) {
  constexpr uint64_t kLimit = 16u << 20;
  std::vector<PackageResource> resources{forgedClip(static_cast<uint32_t>(kLimit - 1024))};
  for (PackageResource& p : test::sims3SampleResources()) resources.push_back(std::move(p));
  uint64_t used = 0;
  auto asset = readWithLimit(serializePackage(resources), kLimit, &used);
  ASSERT_TRUE(asset.ok()) << asset.error().describe();
  EXPECT_EQ(asset->clips.size(), 1u);  // the sample's clip, after the forged one
  EXPECT_EQ(asset->rigs.size(), 1u);
  ASSERT_EQ(asset->provenance.warnings.size(), 1u);
  EXPECT_EQ(asset->provenance.warnings[0].code, "resource-skipped");
  EXPECT_NE(asset->provenance.warnings[0].message.find("can make at most"), std::string::npos) << asset->provenance.warnings[0].message;
  // The whole read, intact clip and rig included, charged less than 1 MiB of the 16 MiB.
  EXPECT_LT(used, 1u << 20);
}

// The bound is RefPack's densest opcode (a 4-byte long copy of 1,028 bytes): a stream that really
// is that dense decodes, and what it charges follows what it writes.
TEST(RefPackForgedSize, ADenseStreamDecodesAndChargesWhatItWrites) {
  const std::vector<uint8_t> zeros(1u << 20, 0);
  const std::vector<uint8_t> packed = refpackCompress(zeros);
  EXPECT_LT(packed.size() * 200, zeros.size());  // the writer's copies are the densest kind
  Budget budget;
  ByteReader r(packed);
  r.setBudget(&budget);
  auto out = refpackDecompress(r);
  ASSERT_TRUE(out.ok()) << out.error().describe();
  EXPECT_EQ(*out, zeros);
  EXPECT_GE(budget.used(), zeros.size());
  EXPECT_LE(budget.used(), 2 * zeros.size());  // grown by doubling, never charged the declared size up front
}

TEST(RefPackForgedSize, ASizeOneByteBeyondTheBoundIsRefusedBeforeAnyAllocation) {
  // 2 bytes after the header can make at most 514 bytes.
  std::vector<uint8_t> stream{0x10, 0xFB, 0x00, 0x02, 0x03, 0xFC, 0x00};
  Budget budget;
  ByteReader r(stream);
  r.setBudget(&budget);
  auto out = refpackDecompress(r);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.error().code, ErrorCode::TooLarge) << out.error().describe();
  EXPECT_EQ(budget.used(), 0u);
  stream[4] = 0x02;  // 514: allowed by the bound, then refused by the decoder (the stream ends early)
  ByteReader again(stream);
  again.setBudget(&budget);
  auto decoded = refpackDecompress(again);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.error().code, ErrorCode::TooLarge) << decoded.error().describe();
}

}  // namespace
}  // namespace rigport
