// The resources of the Sims 3 sample package (a clip and the rig it plays on) as plain bytes, to be
// packaged again beside damaged or forged resources.
#pragma once

#include <vector>

#include "formats/sims3/package.hpp"

namespace rigport::test {

std::vector<sims3::PackageResource> sims3SampleResources();

}  // namespace rigport::test
