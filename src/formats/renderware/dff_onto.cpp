// `convert --to renderware-dff --base ORIGINAL` (issue 28): the rig written into a copy of the
// original DFF. A DFF holds much rigport does not model (materials and their effects, extra and
// night vertex colours, 2dfx, collision, right-to-render, user data, breakable, unknown chunks):
// every byte stays, except the values rigport models that the edit changed — frame matrices and names,
// vertex positions, normals and first UVs, triangles, Skin PLG weights and inverse bind matrices.
// "Changed" is judged on values, not bytes, against what readDff reads of the original (the edit
// came back through glTF and is re-encoded): within kRounding the original's bytes are kept, so an
// unedited round trip is byte-identical. What the original's other chunks depend on is refused, not
// guessed: another bone, parent or mesh count, another vertex or triangle count (prelit colours,
// extra vertex colours, morph targets, UV sets and the Skin PLG hold one entry a vertex), an edit of
// native geometry (its vertices lie in the platform's layout in the Native Data PLG).
#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "core/byte_writer.hpp"
#include "formats/renderware/axes.hpp"
#include "formats/renderware/chunk.hpp"
#include "formats/renderware/clump_rig.hpp"
#include "formats/renderware/dff_onto.hpp"
#include "formats/renderware/renderware.hpp"

namespace rigport::renderware {
namespace {

constexpr size_t kFrameColumnStride = 12;  // a FrameList record packs its matrix: no pads (§1.2)

// Each bone's frame: readDff's bones are the FrameList's frames in parent-first order.
std::vector<uint32_t> framesOfBones(const DffPlaces& places) {
  std::vector<RwFrame> frames(places.frames.size());
  for (size_t f = 0; f < frames.size(); ++f) frames[f].parent = places.frames[f].parent;
  return parentFirstOrder(frames);  // readDff checked there is no cycle
}

// What keeps a DFF's bones: the FrameList's frames the hierarchy (their parents, and the HAnim PLG's
// PUSH/POP agree on it), each frame's extension its name (Node Name or User Data PLG, §1.3), which
// writeNames rewrites.
BoneStore frameStore(const std::vector<uint32_t>& frameOfBone, size_t bones) {
  BoneStore store{"Clump/FrameList", "frames and HAnim nodes", "file", "FrameList parents, HAnim PLG", {}, "/name", ""};
  for (const uint32_t f : frameOfBone) store.bonePaths.push_back(fmt::format("Clump/FrameList/frame[{}]", f));
  store.bonePaths.resize(bones, "Clump/FrameList/HAnimPlg");  // HAnim nodes without a frame follow the frames' bones
  return store;
}

// A bone turned or moved: its frame gets the rig's local matrix. Where readDff posed the bone
// otherwise than its frame (the skin's bind pose, a clump frame's turn dropped; bind_pose.hpp),
// the frame takes the same change: F' = F · L⁻¹ · L'.
void writeFrames(OntoJob& job, const std::vector<uint32_t>& frameOfBone) {
  for (size_t b = 0; b < frameOfBone.size(); ++b) {
    const glm::mat4 was = job.base.skeleton.bones[b].localMatrix();
    const glm::mat4 now = job.rig.skeleton.bones[job.rigBone[b]].localMatrix();
    if (near(was, now, job.length)) continue;
    const size_t at = job.places.frames[frameOfBone[b]].at;
    const glm::mat4 frame = getRwMatrix(job.file, at, kFrameColumnStride);
    putRwMatrix(job.file, at, kFrameColumnStride, near(frame, was, job.length) ? now : frame * glm::inverse(was) * now);
  }
}

// §1.3: the game keeps a frame's Node Name in 24 bytes, its NUL included (librwgta's gtaplg.cpp
// registers 24 and ends the name read there), and readers stop at the first non-printable byte.
constexpr size_t kNodeNameRoom = 23;

bool printableAscii(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7F; });
}

// A renamed bone: its frame's Node Name payload replaced (the chunk, its Extension, the FrameList and
// the Clump grow or shrink by as much), or a Node Name chunk added at the end of its Extension where
// the frame had none (its name was generated, or came from a User Data PLG, which stays as it was).
Status writeNames(OntoJob& job, const std::vector<uint32_t>& frameOfBone) {
  for (size_t b = 0; b < job.base.skeleton.bones.size(); ++b) {
    const std::string& was = job.base.skeleton.bones[b].name;
    const std::string& now = job.rig.skeleton.bones[job.rigBone[b]].name;
    if (now == was) continue;
    if (b >= frameOfBone.size()) {
      return refuse("Clump/FrameList/HAnimPlg", fmt::format("bone '{}' is renamed '{}' in the rig; it is an HAnim node without a frame, "
                                                            "which has no name to rewrite",
                                                            was, now));
    }
    const FramePlace& frame = job.places.frames[frameOfBone[b]];
    if (now.empty() || now.size() > kNodeNameRoom || !printableAscii(now)) {
      return refuse(fmt::format("Clump/FrameList/frame[{}]/name", frameOfBone[b]),
                    fmt::format("bone '{}' is renamed '{}' ({} bytes) in the rig; a frame's Node Name (0x0253F2FE) holds 1 to {} printable "
                                "ASCII characters: the game keeps it in 24 bytes with its NUL",
                                was, now, now.size(), kNodeNameRoom));
    }
    const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(now.data()), now.size());
    if (frame.nodeName) {
      job.splices.push_back(Splice{frame.nodeName->header + kChunkHeaderSize, frame.nodeName->end - frame.nodeName->header - kChunkHeaderSize,
                                   std::vector<uint8_t>(bytes.begin(), bytes.end())});
      continue;
    }
    ByteWriter w;
    const size_t chunk = beginChunk(w, kNodeName, frame.extensionLibraryId);
    w.raw(bytes);
    endChunk(w, chunk);
    job.splices.push_back(Splice{frame.extension.end, 0, w.take()});
  }
  return Ok{};
}

}  // namespace

void putU8(std::vector<uint8_t>& file, size_t at, uint8_t v) { file[at] = v; }
void putU16(std::vector<uint8_t>& file, size_t at, uint16_t v) {
  file[at] = static_cast<uint8_t>(v);
  file[at + 1] = static_cast<uint8_t>(v >> 8);
}
void putU32(std::vector<uint8_t>& file, size_t at, uint32_t v) {
  for (int k = 0; k < 4; ++k) file[at + static_cast<size_t>(k)] = static_cast<uint8_t>(v >> (8 * k));
}
void putF32(std::vector<uint8_t>& file, size_t at, float v) { putU32(file, at, std::bit_cast<uint32_t>(v)); }
uint32_t getU32(const std::vector<uint8_t>& file, size_t at) {
  uint32_t v = 0;
  for (int k = 3; k >= 0; --k) v = v << 8 | file[at + static_cast<size_t>(k)];
  return v;
}
float getF32(const std::vector<uint8_t>& file, size_t at) { return std::bit_cast<float>(getU32(file, at)); }

glm::mat4 getRwMatrix(const std::vector<uint8_t>& file, size_t at, size_t columnStride) {
  glm::mat4 m(1.0f);
  for (size_t c = 0; c < 4; ++c) {
    for (size_t k = 0; k < 3; ++k) m[static_cast<int>(c)][static_cast<int>(k)] = getF32(file, at + c * columnStride + 4 * k);
  }
  return m;
}
void putRwMatrix(std::vector<uint8_t>& file, size_t at, size_t columnStride, const glm::mat4& m) {
  for (size_t c = 0; c < 4; ++c) {
    for (size_t k = 0; k < 3; ++k) putF32(file, at + c * columnStride + 4 * k, m[static_cast<int>(c)][static_cast<int>(k)]);
  }
}

// Axes and scales within kRounding of their size, translations within `length`.
bool near(const glm::mat4& a, const glm::mat4& b, float length) {
  for (int c = 0; c < 4; ++c) {
    for (int k = 0; k < 3; ++k) {
      const float tolerance = c == 3 ? length : kRounding * std::max(1.0f, std::fabs(a[c][k]));
      if (!(std::fabs(a[c][k] - b[c][k]) <= tolerance)) return false;  // NaN: changed
    }
  }
  return true;
}

Result<std::vector<uint8_t>> writeDffOnto(const Rig& input, const Source& source, ReadContext& ctx) {
  const std::span<const uint8_t> bytes = source.bytes();
  RP_ASSIGN(const Rig base, readDff(bytes, ctx));
  RP_ASSIGN(const DffPlaces places, findPlaces(bytes));
  std::optional<Rig> converted;
  const Rig& rig = inRenderWareAxes(input, converted);
  const std::vector<uint32_t> frameOfBone = framesOfBones(places);
  RP_ASSIGN(std::vector<uint32_t> rigBone, matchBones(base.skeleton, rig.skeleton, frameStore(frameOfBone, base.skeleton.bones.size())));
  OntoJob job{base, rig, places, std::move(rigBone), kRounding * largestCoordinate(base),
              std::vector<uint8_t>(bytes.begin(), bytes.end()), {}};
  writeFrames(job, frameOfBone);
  RP_CHECK(writeNames(job, frameOfBone));
  RP_CHECK(writeGeometriesOnto(job));
  applySplices(job.file, std::move(job.splices), places.chunks);
  return std::move(job.file);
}

}  // namespace rigport::renderware
