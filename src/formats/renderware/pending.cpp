// TEMPORARY: placeholders until the DFF and animation readers land; each helper deletes its half.
#include "formats/renderware/anim_io.hpp"
#include "formats/renderware/dff_io.hpp"

namespace rigport::renderware {
namespace {
Error pending() { return makeError(ErrorCode::Unsupported, "not implemented yet"); }
}  // namespace
bool probeDff(std::span<const uint8_t>) { return false; }
Result<Rig> readDff(std::span<const uint8_t>) { return pending(); }
Result<std::vector<uint8_t>> writeDff(const Rig&, const DffWriteOptions&) { return pending(); }
bool probeAnm(std::span<const uint8_t>) { return false; }
Result<Rig> readAnm(std::span<const uint8_t>) { return pending(); }
Result<std::vector<uint8_t>> writeAnm(const Rig&) { return pending(); }
bool probeIfp(std::span<const uint8_t>) { return false; }
Result<Rig> readIfp(std::span<const uint8_t>) { return pending(); }
}  // namespace rigport::renderware
