// The public API's example (include/rigport/rigport.hpp, README "Library"): converts one file to
// .glb as `rigport convert IN -o OUT.glb` does. Built against the installed package by the
// package_example test, which checks its output is the CLI's, byte for byte.
#include <cstdio>

#include <rigport/rigport.hpp>

static int fail(const rigport::Error& e) {
  std::fprintf(stderr, "%s\n", e.describe().c_str());
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  auto shared = rigport::loadSharedInputs(rigport::LoadOptions{});  // no clip files, no skeleton
  if (!shared) return fail(shared.error());
  auto rigs = rigport::loadInput(argv[1], *shared);  // read, bind its clips, repair
  if (!rigs) return fail(rigs.error());
  if (rigs->size() != 1) return fail(rigport::makeError(rigport::ErrorCode::Usage, "holds more than one rig"));
  rigport::Rig& rig = rigs->front().rig;
  auto lift = rigport::settleStance(rig, rigport::StanceOptions{}, true);  // standing, feet on the ground
  if (!lift) return fail(lift.error());
  rigport::GltfOptions options;
  options.groundLift = *lift;
  auto glb = rigport::exportGlb(std::move(rig), options);  // moved in: converted in place, not copied
  if (!glb) return fail(glb.error());
  auto written = rigport::platform::writeFileAtomic(argv[2], *glb);
  return written ? 0 : fail(written.error());
}
