// glTF 2.0 export of a rig (format note: shared/formats/gltf_ecosystem.md §1 and §5).
// One node per bone, a skin with inverseBindMatrices, the skinned mesh node at the scene root with
// no transform, JOINTS_n/WEIGHTS_n, STEP/LINEAR/CUBICSPLINE animation samplers as the keys ask, on
// absolute local TRS (tracks relative to the bind pose go through core/track_space.hpp); events and
// channels glTF cannot express go to `extras`. A rig not in glTF axes is converted (core/axes.hpp)
// first (on a copy, unless the rig is moved into exportGlbParts), and validate()
// (core/validate.hpp) runs before anything is written.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/rig.hpp"
#include "export/gltf_buffer.hpp"
#include "image/png.hpp"

namespace rigport {

struct GltfOptions {
  // More than 4 influences per vertex: write JOINTS_1/WEIGHTS_1 (true) or keep the 4 largest and
  // renormalise (false).
  bool allowEightInfluences = true;
  std::string generator = "rigport";
  // Metres along glTF's +Y that a non-joint node above the skeleton's roots (and above the meshes
  // that ride on no bone) lifts the model by, so that a model whose origin is above its feet stands
  // on the ground (core/rest_pose.hpp finds how far); joints, inverse bind matrices and keys stay
  // exactly as they are. 0: no such node.
  float groundLift = 0.0f;
  // How the textures' PNGs are written (image/png.hpp), and on how many threads a rig's textures
  // are encoded at once: each whole on one thread, so the bytes are those of encoding them in turn.
  // The library starts no thread unless asked; the CLI asks for the cores a batch leaves over.
  image::PngSettings png;
  unsigned imageThreads = 1;
};

namespace gltf {
struct SkeletonPart;
struct AnimationRecordsText;
}

// The skeleton's nodes and skin of the last export given this cache, for the next export to reuse
// when its skeleton, ground lift, scale-compensated bones and root name are the same (a package's
// clips, each exported with its rig): made once, not once per clip. It holds a copy of the skeleton
// it compares with. One per thread; the exports need not share a skeleton (a different one
// replaces what the cache holds).
struct ExportCache {
  std::shared_ptr<const gltf::SkeletonPart> part;
  // The last animation's channels and samplers as text, for the next clip whose records are the
  // same (gltf_document.hpp); made by the first export that writes an animation.
  std::shared_ptr<gltf::AnimationRecordsText> records;
  // The last rig's extras and the scene's "extras" text written from them, for the next rig whose
  // extras are written alike (a package's clips carry their RIG's).
  nlohmann::json sceneExtras;
  std::string sceneExtrasJson;
  // The axis-converted copy that the last export of a rig by const reference made (exportGlb,
  // exportGlbInto and exportGltf of a `const Rig&` not in glTF axes), kept so that the next one
  // writes into its arrays rather than fresh ones: under glibc's default allocator a program
  // exporting rig after rig otherwise faults the whole copy in again each time (BENCHMARKS.md,
  // BM_ReadDffReusingRigAndExportGlb). Between exports it holds the last rig's size; its content
  // is the exporter's scratch, nothing to read.
  Rig spare;
};

// A .glb in memory. A rig not in glTF axes is converted on a copy (made in cache->spare's arrays
// when a cache is given; its meshes' positions, normals and influences are not copied but written
// converted from the rig's by the passes that convert them, its UVs not at all (the GLB takes the
// rig's), its indices only when a mirroring axis change turns them); a rig moved in (the second form) is
// converted in place and its arrays become the GLB's, so nothing but the GLB itself is allocated for its size (a
// program converting file after file under glibc's default allocator gets every fresh large array
// as new pages from the kernel: BENCHMARKS.md).
Result<std::vector<uint8_t>> exportGlb(const Rig& rig, const GltfOptions& options = {}, ExportCache* cache = nullptr);
Result<std::vector<uint8_t>> exportGlb(Rig&& rig, const GltfOptions& options = {}, ExportCache* cache = nullptr);
// The same into `glb`, whose array is kept (cleared, grown only when too small): with a cache, a
// program exporting the rigs it keeps, one after another, allocates nothing new for their size.
Status exportGlbInto(const Rig& rig, std::vector<uint8_t>& glb, const GltfOptions& options = {}, ExportCache* cache = nullptr);
Status exportGlbInto(Rig&& rig, std::vector<uint8_t>& glb, const GltfOptions& options = {}, ExportCache* cache = nullptr);

// The same .glb as pieces to write one after another (pieces()): `head` (the 12-byte header and the
// JSON chunk's 8-byte header), the JSON text in pieces (the animations and the accessor records are
// written apart from the rest), `tail` (its padding and the BIN chunk's 8-byte header), then the BIN
// payload's pieces (padded), some of them the moved-in rig's own arrays (its meshes' positions, its
// key times and values), kept alive in `source`; the text is not copied (for a clip package it is
// 16 MB). A writer that takes pieces
// (writeFileAtomic) saves joining them into one array. The rig is taken by value and converted to
// glTF axes in place, so a caller that moves it in saves copying the meshes too; its meshes'
// normals, indices and influences are then overwritten with the bytes the GLB borrows
// (gltf_document.hpp, addMeshes), so `source` is storage, no longer a model to read.
struct GlbParts {
  std::vector<uint8_t> head;
  std::vector<std::string> json;  // the JSON text, one piece after another
  std::vector<uint8_t> tail;
  gltf::BinPieces bin;
  Rig source;
  std::vector<std::span<const uint8_t>> pieces() const;
  size_t size() const;
  std::string jsonText() const;  // the JSON pieces joined
};
Result<GlbParts> exportGlbParts(Rig rig, const GltfOptions& options = {}, ExportCache* cache = nullptr);

// A .gltf (JSON text) whose single buffer's uri is `binFileName`, plus that buffer's bytes.
struct GltfFiles {
  std::string json;
  std::vector<uint8_t> bin;
};
Result<GltfFiles> exportGltf(const Rig& rig, const std::string& binFileName, const GltfOptions& options = {},
                             ExportCache* cache = nullptr);

}  // namespace rigport
