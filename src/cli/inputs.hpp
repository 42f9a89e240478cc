// What the subcommands share about their inputs: the options that select and bind (--anim,
// --skeleton, --item, --clip, --bind-by-position, --memory-limit), loading them once, and reading
// one input into the rigs to export through the library's assemble().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/assemble.hpp"
#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/rig.hpp"

namespace rigport::cli {

struct InputOptions {
  std::vector<std::string> animations;  // --anim FILE, repeatable
  std::string skeleton;                 // --skeleton FILE[#ITEM]
  std::vector<std::string> items;       // --item
  std::vector<std::string> clips;       // --clip
  bool bindByPosition = false;
  std::string memoryLimit;              // --memory-limit, e.g. "1G"
  bool strict = false;                  // --strict: damage that would be repaired or dropped is an error
  std::string hierarchy;                // --hierarchy FILE: bone parents for formats that store none (RW4)
  std::vector<std::string> textureFiles;  // --txd FILE, repeatable: texture dictionaries for every input
  bool noTextures = false;              // --no-textures: no texture file is looked for or read
};

// Adds the input options to a subcommand.
void addInputOptions(CLI::App& cmd, InputOptions& options);

// The --anim clip sets and the --skeleton rig, loaded once for every input.
struct SharedInputs {
  ReadOptions read;
  AssembleOptions assemble;
  std::vector<ClipSet> animations;
  std::optional<Rig> skeleton;
  bool strict = false;
  std::vector<Texture> textures;          // of the --txd files, in the order given
  std::vector<std::string> textureFiles;  // the --txd files
  bool noTextures = false;
};

// Loads what `options` names. Fails on the first file that cannot be read, naming it and its role.
Result<SharedInputs> loadSharedInputs(const InputOptions& options);

// --strict: the first warning of `asset` that says a damaged part was dropped, as an error
// (core/repair.hpp, dropsDamagedPart()).
Status refuseDroppedParts(const Asset& asset);
// Assembles one input's asset with the shared inputs and repairs what real files damage
// (core/repair.hpp; with --strict, damage, repaired or dropped, is an error).
Result<std::vector<AssembledRig>> assembleInput(Asset asset, const SharedInputs& shared);
// Binds the materials of `rigs` (read from `path`) to textures by name: those of the texture files
// beside `path` with its stem (any case: ped.dff takes PED.TXD), then the --txd ones. A texture
// file beside it that does not read, and a texture found nowhere, are warnings on the rig.
void bindInputTextures(std::vector<AssembledRig>& rigs, const std::string& path, const SharedInputs& shared);
// loadAsset(path), then assembleInput() and bindInputTextures().
Result<std::vector<AssembledRig>> loadInput(const std::string& path, const SharedInputs& shared);

// Prints "rigport: error: <Error::describe()>" on stderr.
void printError(const Error& error);

}  // namespace rigport::cli
