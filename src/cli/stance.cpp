#include "cli/stance.hpp"

namespace rigport::cli {

void addStanceOptions(CLI::App& cmd, StanceOptions& o, bool ground) {
  cmd.add_option("--rest-pose", o.restPose,
                 "Rest pose: CLIP[@SECONDS] takes every bone's pose from that clip (0 s by default; inverse bind matrices "
                 "stay), bind keeps the bind pose; default: the bind pose, or the format's idle clip where the bind pose lies")
      ->check([](const std::string& text) { return isRestPoseSpec(text) ? std::string() : std::string("not CLIP[@SECONDS] or bind"); });
  if (ground) {
    cmd.add_flag("--no-ground", o.noGround,
                 "Keep the model's origin where the file has it (default: a model whose origin is above its feet, a GTA ped, "
                 "is lifted onto the ground)");
  }
}

}  // namespace rigport::cli
