// The format registry: the one place a format plugs in (detection by magic, then by extension).
// Each entry points at its folder's free functions; no per-load state lives in the table.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/asset.hpp"
#include "core/error.hpp"
#include "core/fit.hpp"
#include "core/read_context.hpp"
#include "core/rig.hpp"

namespace rigport {

// What a format's reader fills in.
enum Carries : uint32_t {
  kCarriesSkeleton = 1u << 0,
  kCarriesSkin = 1u << 1,
  kCarriesMesh = 1u << 2,
  kCarriesAnimations = 1u << 3,
  kCarriesContainer = 1u << 4,  // many items in one file (a package, an arena, an archive)
  kCarriesTextures = 1u << 5,   // images for the materials of models in other files (a TXD)
};
// "skeleton, skin, meshes", in that order.
std::string carriesText(uint32_t carries);

// How a format's models stand when nothing else poses them (core/rest_pose.hpp); empty for most.
struct StandHints {
  // The clip the game plays when nothing else does: the rest pose when the bind pose lies on its
  // side, and the file that usually holds it (for the advice a warning gives).
  std::string_view idleClip;
  std::string_view idleClipFile;
  // The model's origin is above its feet (a GTA ped's is its pelvis): glTF output lifts its lowest
  // point onto the ground (GltfOptions::groundLift).
  bool originAboveFeet = false;
};

// A format's stated precision: how close to what was written its values pose, as a fraction of the
// model's size (`rigport compare`'s default tolerance, README "Modding"). Float32 values pose within
// 1e-4 of the size after axis and unit conversion and sampling; quantised keys less closely.
inline constexpr double kFloatPrecision = 1e-4;
// Keys stored as small integers: Sims 3 CLIP keys of 12 bits a component over each channel's range
// (sims3_clip.md §2.5), GTA ANPK rotations in 1/4096 and translations in 1/1024 m (renderware.md,
// IFP). A finger at the end of a chain of rounded turns moves up to a few 1e-4 of the model's size.
inline constexpr double kQuantisedKeyPrecision = 1e-3;

struct FormatInfo {
  std::string_view name;         // stable id used on the command line, e.g. "renderware-dff"
  std::string_view description;  // one line for `rigport formats`
  std::string_view extensions;   // comma-separated, lower case, with dots: ".dff"
  uint32_t carries = 0;          // Carries bits
  std::string_view binding;      // how its clips find their bones, for standalone animation formats
  // Cheap magic check on the first bytes; false when unsure.
  bool (*probe)(std::span<const uint8_t> bytes);
  // The file's items without decoding them.
  Result<std::vector<ItemInfo>> (*list)(const Source& source, ReadContext& ctx);
  // Everything the file holds. Must never crash, hang or allocate beyond ctx's budget on any input.
  Result<Asset> (*read)(const Source& source, ReadContext& ctx);
  // Rig -> bytes; nullptr when the format has no writer yet.
  Result<std::vector<uint8_t>> (*write)(const Rig& rig);
  // What the writer's format can hold; `convert --to` fits a rig to it first, saying what was lost.
  WriteLimits limits{};
  StandHints stand{};
  double precision = kFloatPrecision;
  // Rig -> a copy of `base` (a file of this format) with the rig's parts written into it and the rest
  // kept byte for byte (`convert --to FORMAT --base ORIGINAL`); nullptr where the format has none.
  Result<std::vector<uint8_t>> (*writeOnto)(const Rig& rig, const Source& base, ReadContext& ctx) = nullptr;
  // Where its materials' textures are: empty when they name textures inside texture files found by the
  // model's own name (a DFF's TXD); else the extension of the files each texture name names, beside
  // the model (BattleForge: "skin_col" is skin_col.dds), looked for and warned about by that name.
  std::string_view textureFileExtension = {};
  // For a writer whose file depends on the rig (the RW4 platform it came from): what it holds for
  // this rig, used by `convert --to` in place of `limits`; nullptr where `limits` always applies.
  WriteLimits (*limitsFor)(const Rig& rig) = nullptr;

  WriteLimits writeLimits(const Rig& rig) const { return limitsFor != nullptr ? limitsFor(rig) : limits; }

  // Clips with no skeleton of their own: they bind to one from another file.
  bool animationOnly() const { return (carries & kCarriesAnimations) != 0 && (carries & kCarriesSkeleton) == 0; }
};

std::span<const FormatInfo> formats();
const FormatInfo* findFormat(std::string_view name);
// Whether `path`'s extension (any case) is one of the format's.
bool namesFileOf(const FormatInfo& f, std::string_view path);
// Magic first (the extension breaks ties); with no magic match, the extension alone.
const FormatInfo* detectFormat(std::span<const uint8_t> bytes, std::string_view path);

// Reads `source` with `format` (detected from its bytes and name when null). Provenance format and
// file are filled in; rigs and clip sets without a name take the file's stem, unnamed clips too.
// A nested read (a container's resource) is one level deeper in `ctx` and errors carry its frame.
Result<Asset> readAsset(const Source& source, ReadContext& ctx, const FormatInfo* format = nullptr);

// The context a read of the file at `path` gets: siblings open relative to its folder, inner
// resources go to the registry's readers (one level deeper each, up to options.maxDepth).
ReadContext fileReadContext(const std::string& path, const ReadOptions& options);

// Opens `path` (memory-mapped) and reads it with fileReadContext(). Every error names the file.
Result<Asset> loadAsset(const std::string& path, const ReadOptions& options = {});
// The items of `path`, cheaply, for `rigport info`.
Result<std::vector<ItemInfo>> listItems(const std::string& path, const ReadOptions& options = {});

}  // namespace rigport
