// TEMPORARY: placeholder until the DFF reader/writer lands; its author deletes this file.
#include "formats/renderware/dff_io.hpp"
namespace rigport::renderware {
namespace {
Error pending() { return makeError(ErrorCode::Unsupported, "not implemented yet"); }
}  // namespace
bool probeDff(std::span<const uint8_t>) { return false; }
Result<Rig> readDff(std::span<const uint8_t>) { return pending(); }
Result<std::vector<uint8_t>> writeDff(const Rig&, const DffWriteOptions&) { return pending(); }
}  // namespace rigport::renderware
