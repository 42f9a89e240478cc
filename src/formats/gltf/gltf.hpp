// glTF 2.0 in: a .glb, or a .gltf with its buffers (external .bin files or data: URIs), read into
// the rig model so that a rig edited in Blender can be written back to a game format
// (`rigport convert in.glb --to renderware-dff`). Format note: shared/formats/gltf_ecosystem.md.
//
// Parsing the JSON document is left to tinygltf 2.7.0 (Debian libtinygltf-dev, already a test
// dependency): a maintained, spec-complete parser of glTF's schema (every object, extras, data: URIs,
// GLB chunks), where a hand-written one would re-implement that schema for no gain; cgltf and
// fastgltf are not packaged in Debian 12 (gltf_ecosystem.md §3). What tinygltf does NOT do is
// bound the work a hostile file causes, so everything around it is ours (gltf_load.cpp): the GLB
// header and chunks are checked through the ByteReader first, the JSON's size and nesting are
// charged to the Budget and capped before tinygltf parses it, external buffers are opened through
// ReadContext::openSibling and charged to the Budget before they are copied, images are never
// decoded, and every accessor is decoded by our own bounds-checked code (gltf_accessor.cpp) whose
// errors name the field ("accessors[3].count").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/asset.hpp"
#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/source.hpp"

namespace rigport::gltf_in {

// "glTF" and version 2 at the start of a GLB. A .gltf (JSON text) has no magic: the extension finds it.
bool probeGlb(std::span<const uint8_t> bytes);
// One rig per skeleton (the node tree of a skin's joints), with its skinned meshes, the meshes that
// ride on its bones, and the animations that move its bones. A file with no skin is an error.
Result<Asset> readGltf(const Source& source, ReadContext& ctx);
// The rigs and their animations by name (the file is read whole: the skeletons need the buffers).
Result<std::vector<ItemInfo>> listGltf(const Source& source, ReadContext& ctx);

}  // namespace rigport::gltf_in
