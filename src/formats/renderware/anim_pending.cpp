// TEMPORARY: placeholder until the .anm/.ifp readers land; their author deletes this file.
#include "formats/renderware/anim_io.hpp"
namespace rigport::renderware {
namespace {
Error pending() { return makeError(ErrorCode::Unsupported, "not implemented yet"); }
}  // namespace
bool probeAnm(std::span<const uint8_t>) { return false; }
Result<Rig> readAnm(std::span<const uint8_t>) { return pending(); }
Result<std::vector<uint8_t>> writeAnm(const Rig&) { return pending(); }
bool probeIfp(std::span<const uint8_t>) { return false; }
Result<Rig> readIfp(std::span<const uint8_t>) { return pending(); }
}  // namespace rigport::renderware
