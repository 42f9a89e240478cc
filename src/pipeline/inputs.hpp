// Reading inputs into the rigs to export: the clip files and the skeleton named once for a whole
// batch (LoadOptions, loaded into SharedInputs), then each input read, assembled with them
// (core/assemble.hpp) and repaired (core/repair.hpp). The CLI's --anim, --skeleton, --item, --clip,
// --strict, --memory-limit, --hierarchy, --txd and --no-textures are these options.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/assemble.hpp"
#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/rig.hpp"

namespace rigport {

struct LoadOptions {
  std::vector<std::string> animations;  // clip files bound to each input's skeleton
  std::string skeleton;                 // FILE or FILE#ITEM: the skeleton for clips that carry none
  std::vector<std::string> items;       // only these items of each input (id or name); empty: all
  std::vector<std::string> clips;       // only the clips with these names; empty: all
  bool bindByPosition = false;          // bind by node position even when counts differ
  uint64_t memoryLimit = 0;             // most bytes one file's read may allocate from sizes in it; 0: ReadOptions' default
  bool strict = false;                  // damage that would be repaired or dropped is an error
  std::string hierarchy;                // JSON bone-parent manifest for formats that store none (docs/hierarchy_manifest.md)
  std::vector<std::string> textureFiles;  // texture dictionaries for every input, after the one beside it
  bool noTextures = false;              // no texture file is looked for or read
};

// What LoadOptions name, loaded once for every input.
struct SharedInputs {
  ReadOptions read;
  AssembleOptions assemble;
  std::vector<ClipSet> animations;
  std::optional<Rig> skeleton;
  bool strict = false;
  std::vector<Texture> textures;          // of the textureFiles, in the order given
  std::vector<std::string> textureFiles;
  bool noTextures = false;
};

// Loads what `options` names. Fails on the first file that cannot be read, naming it and its role.
Result<SharedInputs> loadSharedInputs(const LoadOptions& options);
// With `strict`: the first warning of `asset` that says a damaged part was dropped, as an error
// (core/repair.hpp, dropsDamagedPart()).
Status refuseDroppedParts(const Asset& asset);
// Assembles one input's asset with the shared inputs and repairs what real files damage
// (core/repair.hpp; when strict, damage, repaired or dropped, is an error).
Result<std::vector<AssembledRig>> assembleInput(Asset asset, const SharedInputs& shared);
// The same with shared inputs the caller gives up (its only input): their clips are moved onto the
// last rig that plays them instead of copied (assemble()).
Result<std::vector<AssembledRig>> assembleInput(Asset asset, SharedInputs&& shared);
// Binds the materials of `rigs` (read from `path`) to textures by name: those of the texture files
// beside `path` with its stem (any case: ped.dff takes PED.TXD), and, for a format whose materials
// name their own texture files (FormatInfo::textureFileExtension: a DRS's skin_col is skin_col.dds),
// the file each colour and normal map names (any case), then the shared ones. A texture file beside
// it that does not read, and a texture found nowhere, are warnings on the rig (a named file that is
// absent is named in its warning); with no texture file beside it, named or given, the rigs are left
// as they are (no warning).
void bindInputTextures(std::vector<AssembledRig>& rigs, const std::string& path, const SharedInputs& shared);
// assembleInput() and bindInputTextures() item by item (core/assemble.hpp, ClipsAssembler), for an
// input read with ReadOptions::clipsRead: each clip set's rig as it comes, then the rigs that played
// none. Not for --strict, which refuses the whole input for damage anywhere in it, nor for --item and
// --clip picking; the shared inputs are copied, never taken.
class InputItems {
 public:
  InputItems(std::string path, const SharedInputs& shared);
  Result<AssembledRig> play(ClipSet& clips, const Asset& input);
  Result<std::vector<AssembledRig>> rest(Asset input);
  // ClipsAssembler::recycle(): a rig play() gave, once written.
  void recycle(Rig&& spent) { assembler_.recycle(std::move(spent)); }

 private:
  Status finish(std::vector<AssembledRig>& rigs, bool bonesSound = false) const;

  std::string path_;
  const SharedInputs& shared_;
  ClipsAssembler assembler_;
};

// loadAsset(path), then assembleInput() and bindInputTextures().
Result<std::vector<AssembledRig>> loadInput(const std::string& path, const SharedInputs& shared);
Result<std::vector<AssembledRig>> loadInput(const std::string& path, SharedInputs&& shared);

}  // namespace rigport
