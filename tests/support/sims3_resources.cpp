#include "support/sims3_resources.hpp"

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace rigport::test {

std::vector<sims3::PackageResource> sims3SampleResources() {
  const std::vector<uint8_t> bytes = readBytes(sample("sims3/synthetic_clip_and_rig.package"));
  ByteReader r(bytes);
  auto entries = sims3::parsePackageIndex(r);
  EXPECT_TRUE(entries.ok());
  std::vector<sims3::PackageResource> out;
  for (const sims3::PackageEntry& e : entries.ok() ? *entries : std::vector<sims3::PackageEntry>{}) {
    auto plain = sims3::packageResource(r, e);
    EXPECT_TRUE(plain.ok());
    if (plain.ok()) out.push_back(sims3::PackageResource::make(e.type, e.group, e.instance, *plain, e.compression != 0));
  }
  return out;
}

}  // namespace rigport::test
