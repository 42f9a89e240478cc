// `rigport convert FILE|DIR... [-o DIR|FILE] [-j N] [--include GLOB] [--gltf] [--merge]
// [--anim FILE]... [--skeleton FILE[#ITEM]] [--resample FPS] [--strict] [--rest-pose CLIP[@SECONDS]|bind]
// [--no-ground] [--to FORMAT [--anim-out FILE]] [--txd FILE]... [--no-textures]`:
// each input to DIR/<stem>.glb, or DIR/<stem>/<item>.glb when it yields several rigs (or .gltf +
// .bin), with the textures of the texture files beside it or given embedded; a file of textures
// alone (a TXD) to DIR/<stem>/<texture>.png; with --to, to DIR/<stem>.<format's extension> through that format's writer
// (pipeline/encode.hpp); a file found in a folder keeps its place below the folder. A bad input is
// reported and skipped; the batch goes on, on every core, and reports in input order.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <optional>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cli/batch.hpp"
#include "cli/commands.hpp"
#include "pipeline/encode.hpp"
#include "cli/exit_codes.hpp"
#include "pipeline/file_names.hpp"
#include "pipeline/verify.hpp"
#include "cli/inputs.hpp"
#include "cli/interrupt.hpp"
#include "cli/progress.hpp"
#include "cli/stance.hpp"
#include "cli/streams.hpp"
#include "platform/files.hpp"
#include "platform/paths.hpp"
#include "core/resample.hpp"
#include "export/gltf.hpp"
#include "export/json_report.hpp"
#include "formats/registry.hpp"
#include "image/png.hpp"

namespace rigport::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

struct ConvertSettings {
  std::vector<std::string> files;
  std::vector<std::string> include;  // --include GLOB, for folders
  unsigned jobs = 0;                 // -j N; 0: every core
  bool skipExisting = false;         // --skip-existing: an input whose output exists is not read again
  bool overwrite = false;            // --overwrite: replace existing outputs (else they are an error)
  InputOptions inputs;
  StanceOptions stance;              // --rest-pose, --no-ground
  std::string output = ".";
  bool separateFiles = false;  // --gltf: .gltf + .bin instead of .glb
  bool quiet = false;
  bool verbose = false;
  bool json = false;
  float resampleFps = 0.0f;    // --resample FPS (core/resample.hpp); 0: keys as the files have them
  bool merge = false;          // --merge: the clips of one input that play on one skeleton, in one file
  std::string to;              // --to FORMAT: a registry writer instead of glTF
  std::string animOut;         // --anim-out FILE: where --to writes animations its format cannot hold
  const FormatInfo* target = nullptr;      // resolved --to
  const FormatInfo* animTarget = nullptr;  // resolved --anim-out
  std::string base;                        // --base ORIGINAL: --to writes into a copy of it
  std::optional<BaseFile> baseFile;        // resolved --base
  bool noVerify = false;                   // --no-verify: --to does not read back and measure what it encoded
};

enum class Outcome { Converted, Skipped, InputFailed, OutputFailed };

struct FileResult {
  std::string input;
  std::vector<std::string> skipped;   // outputs that existed, with --skip-existing
  Outcome outcome = Outcome::Converted;
  Error error;                        // when not Converted
  std::vector<std::string> written;   // output files, in order
  Provenance warnings;                // of every rig written
  Provenance losses;                  // --to: what the target format could not hold
  BindReport coverage;
};

bool namesAFile(const ConvertSettings& s) {
  if (s.target != nullptr) return namesFileOf(*s.target, s.output);
  const std::string ext = fs::path(s.output).extension().string();
  return ext == ".glb" || ext == ".gltf";
}

// The extension of the files written: the --to format's first, else .gltf or .glb.
std::string outputExtension(const ConvertSettings& s) {
  if (s.target != nullptr) return firstExtension(*s.target);
  return s.separateFiles ? ".gltf" : ".glb";
}

// Writes both files of a .gltf export, neither moved into place before both are complete.
Status writeGltfPair(const fs::path& gltfPath, const GltfFiles& files, platform::Overwrite overwrite) {
  fs::path binPath = gltfPath;
  binPath.replace_extension(".bin");
  const std::span<const uint8_t> bin[] = {files.bin};
  const std::span<const uint8_t> json[] = {{reinterpret_cast<const uint8_t*>(files.json.data()), files.json.size()}};
  const platform::FileToWrite pair[] = {{binPath.string(), bin}, {gltfPath.string(), json}};
  return platform::writeFilesAtomic(pair, overwrite);
}

// Where an input's output goes, before it is read: `base` + ".glb" for one rig, the folder
// `base` for several; or the file -o names.
struct Plan {
  BatchInput input;
  fs::path base;
  fs::path single;  // the output when the input yields one rig
};

Plan plan(const BatchInput& input, const ConvertSettings& s) {
  if (namesAFile(s)) return Plan{input, fs::path(s.output), fs::path(s.output)};
  const fs::path base = fs::path(s.output) / input.folder / fs::path(input.path).stem();
  fs::path single = base;
  single += outputExtension(s);
  return Plan{input, platform::spelledLike(base.lexically_normal(), s.output), platform::spelledLike(single.lexically_normal(), s.output)};
}

// Where the next of an input's several rigs goes, given the names its rigs before took: rigs of
// one input with the same name get "_2", "_3"... so that none replaces another.
fs::path outputPath(const Plan& p, const Rig& rig, std::set<std::string>& taken, const ConvertSettings& s) {
  std::string name = fileSafe(rig.name, "rig");
  for (int n = 2; !taken.insert(name).second; ++n) name = fmt::format("{}_{}", fileSafe(rig.name, "rig"), n);
  return platform::spelledLike(p.base / (name + outputExtension(s)), s.output);
}

// Where each rig goes.
std::vector<fs::path> outputPaths(const Plan& p, const std::vector<AssembledRig>& rigs, const ConvertSettings& s) {
  if (rigs.size() == 1) return {p.single};
  std::vector<fs::path> paths;
  std::set<std::string> taken;
  for (const AssembledRig& r : rigs) paths.push_back(outputPath(p, r.rig, taken, s));
  return paths;
}

bool sameWarnings(const std::vector<Warning>& a, const std::vector<Warning>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Warning& x, const Warning& y) { return x.code == y.code && x.message == y.message && x.count == y.count; });
}

// Whether `path` names, by its extension, a file of textures alone (a TXD, a DDS).
bool namesTextureFile(const std::string& path) {
  const auto all = formats();
  return std::any_of(all.begin(), all.end(), [&](const FormatInfo& f) { return (f.carries & kCarriesTextures) != 0 && namesFileOf(f, path); });
}

Error existsError(const fs::path& out) {
  return ioError(out.string(), "exists; --overwrite replaces it, --skip-existing keeps it and skips its input");
}

// Exports and writes one rig, moved in (the exporter converts its axes in place): an export error
// fails the input, a write error the output. A GLB written, `rig` holds the rig as the exporter left
// it, storage for the next (InputItems::recycle()).
// Without --overwrite the write itself refuses an existing file (platform::Overwrite::Refuse), so
// of two processes writing one output exactly one succeeds, whatever the check before reading said.
// `cache`: the skeleton nodes the input's previous rigs made (its clips share a rig).
std::optional<std::pair<Outcome, Error>> writeRig(Rig&& rig, const fs::path& out, bool separateFiles, const GltfOptions& options,
                                                  platform::Overwrite overwrite, ExportCache& cache) {
  if (separateFiles) {
    auto files = exportGltf(rig, out.stem().string() + ".bin", options, &cache);
    if (!files) return std::pair{Outcome::InputFailed, files.error()};
    if (auto written = writeGltfPair(out, *files, overwrite); !written) return std::pair{Outcome::OutputFailed, written.error()};
    return std::nullopt;
  }
  auto glb = exportGlbParts(std::move(rig), options, &cache);
  if (!glb) return std::pair{Outcome::InputFailed, glb.error()};
  if (auto written = platform::writeFileAtomic(out.string(), glb->pieces(), overwrite); !written) {
    return std::pair{Outcome::OutputFailed, written.error()};
  }
  rig = std::move(glb->source);
  return std::nullopt;
}

// --merge: rigs of one input with the same bones (a package's clips, each assembled on its rig)
// become one rig, named after the input, carrying all their animations.
void mergeSameSkeletons(std::vector<AssembledRig>& rigs, const std::string& input) {
  auto sameBones = [](const Skeleton& a, const Skeleton& b) {
    return a.bones.size() == b.bones.size() &&
           std::equal(a.bones.begin(), a.bones.end(), b.bones.begin(), [](const Bone& x, const Bone& y) { return x.name == y.name && x.parent == y.parent; });
  };
  std::vector<AssembledRig> merged;
  for (AssembledRig& r : rigs) {
    auto into = std::find_if(merged.begin(), merged.end(), [&](const AssembledRig& m) { return sameBones(m.rig.skeleton, r.rig.skeleton); });
    if (into == merged.end()) {
      merged.push_back(std::move(r));
      continue;
    }
    for (Animation& a : r.rig.animations) into->rig.animations.push_back(std::move(a));
    into->rig.provenance.absorb(r.rig.provenance);
    into->coverage.add(r.coverage);
    into->rig.name = fs::path(input).stem().string();
  }
  rigs = std::move(merged);
}

// The rigs of a batch's only input, written: the process ends after them, and gives their memory
// back at once. Freed array by array, a 1,000-clip IFP's 32,000 tracks took 12 % of its
// conversion's CPU time (glibc's free merging each array with its neighbours, a cache miss each);
// held here, they are still reachable, so no leak checker counts them as lost.
void keepUntilExit(std::vector<AssembledRig>&& rigs) {
  static auto* const kept = new std::vector<AssembledRig>();
  for (AssembledRig& r : rigs) kept->push_back(std::move(r));
}

// Converts one planned input; safe to call from several threads at once (the plans keep inputs'
// outputs apart).
class Converter {
 public:
  // `only`: the shared inputs, given up to the batch's only input (its --anim clips are then moved
  // onto its rig, not copied); null for a batch of several. `imageThreads`: the threads an input's
  // PNGs are encoded on (image::encodePngs).
  Converter(const ConvertSettings& s, const SharedInputs& shared, SharedInputs* only, unsigned imageThreads)
      : s_(s), shared_(shared), only_(only), imageThreads_(imageThreads) {}

  FileResult convert(const Plan& p) {
    const std::string& path = p.input.path;
    FileResult result;
    result.input = path;
    std::error_code ec;
    // A file of textures alone writes PNGs into its folder, never `single`, which may be the .glb of
    // the model of the same name (ped.txd beside ped.dff): each PNG's own write refuses what exists.
    if (!s_.overwrite && !namesTextureFile(path) && fs::exists(p.single, ec)) {
      if (!s_.skipExisting) return failed(std::move(result), Outcome::OutputFailed, existsError(p.single));
      result.outcome = Outcome::Skipped;
      result.skipped.push_back(p.single.string());
      return result;
    }
    return itemByItem() ? convertItems(p, std::move(result)) : convertWhole(p, std::move(result));
  }

 private:
  // --merge (every clip of a skeleton in one file), -o naming one file (an input of several rigs
  // is refused before anything is written), --strict (damage anywhere refuses the whole input) and
  // picking with --item or --clip need the whole input at once.
  bool itemByItem() const {
    return !s_.merge && !namesAFile(s_) && s_.animOut.empty() && !shared_.strict && shared_.assemble.items.empty() && shared_.assemble.clips.empty();
  }

  FileResult convertWhole(const Plan& p, FileResult result) {
    auto asset = loadAsset(p.input.path, shared_.read);
    if (!asset) return failed(std::move(result), Outcome::InputFailed, asset.error());
    return convertAsset(std::move(*asset), p, std::move(result));
  }

  // Item by item, an input whose reader hands its clip sets on as it decodes them
  // (ReadOptions::clipsRead: a Sims 3 package): each is assembled, exported, written and freed
  // before the next is decoded, then the rigs that played none are, so the memory held is the
  // largest item's, not the file's. The outputs and the result are convertWhole()'s, or it gives
  // way to it: the clip-by-clip conversion holds only while nothing would make them differ. Every
  // output carries the file-level warnings, so one that appears after the first clip was written
  // (a damaged clip or RIG further on) gives way; so do an input of fewer than two clips (one clip
  // may be its only rig, written as <stem>.glb, not in a folder) or with its first clip damaged, an
  // output that exists (the whole conversion refuses the input before writing any), and any error
  // (which the whole conversion meets, or another before it, with fewer files written). Giving way,
  // it removes the files and folders it made (files it replaced, with --overwrite, stay as it wrote
  // them) and converts the input whole.
  FileResult convertItems(const Plan& p, FileResult result) {
    const std::string& path = p.input.path;
    std::optional<InputItems> items;
    std::vector<Warning> fileWarnings;  // what every output carries
    std::set<std::string> taken;        // the output names given
    ExportCache cache;
    Made made;
    fs::path folderMade;  // the folder of the file written last, made or found
    FolderNames found;    // what that folder held before
    bool gaveWay = false;
    // `played`: where the rig's animations go once written (the clip set the reader handed, whose
    // animation's key arrays it decodes the next clip's keys into); null: freed with the rig.
    auto write = [&](AssembledRig& a, std::vector<Animation>* played = nullptr) {
      if (s_.resampleFps > 0.0f && !resampleAnimations(a.rig, s_.resampleFps)) return false;
      const fs::path out = outputPath(p, a.rig, taken, s_);
      std::error_code ec;
      // Each folder once: a package's clips all go into one (two stats a file less).
      if (out.has_parent_path() && out.parent_path() != folderMade) {
        folderMade = out.parent_path();
        const bool fresh = made.folders(folderMade);
        fs::create_directories(folderMade, ec);
        found.read(folderMade, fresh);
      }
      const bool exists = out.has_parent_path() ? found.holds(out) : fs::exists(out, ec);
      if (!s_.overwrite && exists) {
        if (!s_.skipExisting) return false;
        result.skipped.push_back(out.string());
        return true;
      }
      const bool replaces = s_.overwrite && exists;
      const size_t before = result.written.size();
      const bool written = !writeAssembled(a, out, result, cache);
      if (!replaces) made.files(result.written, before, s_.separateFiles);
      if (played != nullptr) *played = std::move(a.rig.animations);
      items->recycle(std::move(a.rig));  // the next clip's copy of its rig is made in it
      return written;
    };
    ReadOptions read = shared_.read;
    read.clipsRead = [&](Asset& sofar, size_t clipIndex, size_t clipCount) -> Status {
      if (!items && clipIndex == 0 && clipCount >= 2) {
        fileWarnings = sofar.provenance.warnings;
        items.emplace(path, shared_);
      }
      if (items && sameWarnings(sofar.provenance.warnings, fileWarnings)) {
        auto rig = items->play(sofar.clips.front(), sofar);
        if (rig && write(*rig, &sofar.clips.front().animations)) return Ok{};
      }
      gaveWay = true;
      return makeError(ErrorCode::Usage, "converted whole instead");  // ends the read; never shown
    };
    auto asset = loadAsset(path, read);
    if (!items) {  // no clip was handed on, so nothing was written, and a read to its end is the whole read
      if (!asset || gaveWay) return convertWhole(p, std::move(result));
      return convertAsset(std::move(*asset), p, std::move(result));
    }
    bool whole = gaveWay || !asset || !sameWarnings(asset->provenance.warnings, fileWarnings);
    if (!whole) {
      auto rest = items->rest(std::move(*asset));
      whole = !rest || !std::all_of(rest->begin(), rest->end(), write);
    }
    if (whole) {
      made.remove();
      FileResult fresh;
      fresh.input = path;
      return convertWhole(p, std::move(fresh));
    }
    if (result.written.empty()) result.outcome = Outcome::Skipped;
    return result;
  }

  // The files and folders convertItems() made, in order, to remove if it gives way.
  class Made {
   public:
    // The folders of `folder` that do not exist yet, about to be made; whether `folder` is one.
    bool folders(const fs::path& folder) {
      std::error_code ec;
      std::vector<fs::path> missing;
      for (fs::path f = folder; !f.empty() && !fs::exists(f, ec); f = f.parent_path()) {
        missing.push_back(f);
        if (f == f.parent_path()) break;
      }
      made_.insert(made_.end(), missing.rbegin(), missing.rend());
      return !missing.empty();
    }
    // The files written[from...] and, for a .gltf, its .bin.
    void files(const std::vector<std::string>& written, size_t from, bool separateFiles) {
      for (size_t i = from; i < written.size(); ++i) {
        made_.emplace_back(written[i]);
        if (separateFiles) made_.push_back(fs::path(written[i]).replace_extension(".bin"));
      }
    }
    // Last made, first removed: a folder only once empty, and only if still so.
    void remove() const {
      std::error_code ec;
      for (auto it = made_.rbegin(); it != made_.rend(); ++it) fs::remove(*it, ec);
    }

   private:
    std::vector<fs::path> made_;
  };

  // Whether a file convertItems() writes exists already (without --overwrite it gives way; with it,
  // the files it replaced are not its own to remove when it gives way), without a stat per file:
  // the names a folder held are read once, when its first file is written, and a folder just made
  // held none. A name it did not hold is still looked for (a file system that ignores case holds
  // "A.glb" for "a.glb").
  class FolderNames {
   public:
    void read(const fs::path& folder, bool fresh) {
      names_.clear();
      listed_ = !fresh;
      unread_ = false;
      if (fresh) return;
      std::error_code ec;
      for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) names_.insert(it->path().filename().string());
      unread_ = static_cast<bool>(ec);
    }
    bool holds(const fs::path& file) const {
      std::error_code ec;
      if (unread_) return fs::exists(file, ec);
      if (!listed_) return false;  // a folder just made
      return names_.count(file.filename().string()) != 0 || fs::exists(file, ec);
    }

   private:
    std::unordered_set<std::string> names_;
    bool listed_ = false;
    bool unread_ = true;  // no folder read yet, or its reading failed: every file is looked for
  };

  // The conversion of a read input, as a whole.
  FileResult convertAsset(Asset asset, const Plan& p, FileResult result) {
    const std::string& path = p.input.path;
    if (asset.rigs.empty() && asset.clips.empty() && !asset.textures.empty()) return writeTextures(asset, p, std::move(result));
    // The only input takes the shared clips instead of a copy; shared_ still holds the rest (textures).
    const bool onlyInput = only_ != nullptr;
    auto rigs = onlyInput ? assembleInput(std::move(asset), std::move(*std::exchange(only_, nullptr)))
                          : assembleInput(std::move(asset), shared_);
    if (!rigs) return failed(std::move(result), Outcome::InputFailed, rigs.error());
    bindInputTextures(*rigs, path, shared_);
    if (s_.merge) mergeSameSkeletons(*rigs, path);
    if ((namesAFile(s_) || !s_.animOut.empty()) && rigs->size() > 1) {
      return failed(std::move(result), Outcome::InputFailed,
                    makeError(ErrorCode::Usage, fmt::format("yields {} rigs but -o names one file; give a folder or pick one with --item",
                                                            rigs->size())));
    }
    if (s_.resampleFps > 0.0f) {
      for (AssembledRig& a : *rigs) {
        if (auto resampled = resampleAnimations(a.rig, s_.resampleFps); !resampled) {
          return failed(std::move(result), Outcome::InputFailed, resampled.error());
        }
      }
    }
    const std::vector<fs::path> outs = outputPaths(p, *rigs, s_);
    std::error_code ec;
    for (size_t i = 0; i < rigs->size(); ++i) {
      if (!s_.overwrite && fs::exists(outs[i], ec)) {
        if (!s_.skipExisting) return failed(std::move(result), Outcome::OutputFailed, existsError(outs[i]));
        result.skipped.push_back(outs[i].string());
      }
    }
    ExportCache cache;
    for (size_t i = 0; i < rigs->size(); ++i) {
      if (std::find(result.skipped.begin(), result.skipped.end(), outs[i].string()) != result.skipped.end()) continue;
      if (outs[i].has_parent_path()) fs::create_directories(outs[i].parent_path(), ec);
      if (auto failure = writeAssembled((*rigs)[i], outs[i], result, cache)) return failed(std::move(result), failure->first, std::move(failure->second));
    }
    if (result.written.empty()) result.outcome = Outcome::Skipped;
    if (onlyInput) keepUntilExit(std::move(*rigs));
    return result;
  }

  // Stands, exports and writes one rig to `out` (its folder made), moved into the exporter.
  std::optional<std::pair<Outcome, Error>> writeAssembled(AssembledRig& a, const fs::path& out, FileResult& result, ExportCache& cache) {
    // glTF output rests and stands as --rest-pose and --no-ground say; a game format gets only the
    // rest pose the user names (its own frames are its rest pose).
    GltfOptions gltf;
    gltf.imageThreads = imageThreads_;
    if (s_.target == nullptr || !s_.stance.restPose.empty()) {
      auto lift = settleStance(a.rig, s_.stance, s_.target == nullptr);
      if (!lift) return std::pair{Outcome::InputFailed, lift.error()};
      gltf.groundLift = *lift;
    }
    const Provenance provenance = a.rig.provenance;  // the rig itself is moved into the exporter
    if (s_.target != nullptr) {
      if (auto failure = writeToFormat(a.rig, out, result)) return failure;
    } else if (auto failure = writeRig(std::move(a.rig), out, s_.separateFiles, gltf, overwrite(), cache)) {
      return failure;
    } else {
      result.written.push_back(out.string());
    }
    result.warnings.absorb(provenance);
    result.coverage.add(a.coverage);
    return std::nullopt;
  }
  // A file of textures alone (a TXD): each texture's level 0 as <base>/<name>.png, every PNG
  // encoded before any is written.
  FileResult writeTextures(const Asset& asset, const Plan& p, FileResult result) {
    if (namesAFile(s_) || s_.target != nullptr) {
      return failed(std::move(result), Outcome::InputFailed,
                    makeError(ErrorCode::Usage, "holds textures only, written as PNG files: give -o a folder, without --to"));
    }
    if (shared_.strict) {
      if (auto refused = refuseDroppedParts(asset); !refused) return failed(std::move(result), Outcome::InputFailed, refused.error());
    }
    std::vector<const ImageLevel*> levels;
    for (const Texture& t : asset.textures) levels.push_back(&t.image.levels.front());
    std::vector<Result<std::vector<uint8_t>>> pngs = image::encodePngs(levels, image::PngSettings{}, imageThreads_);
    std::vector<std::pair<fs::path, std::vector<uint8_t>>> files;
    std::set<std::string> taken;
    for (size_t i = 0; i < asset.textures.size(); ++i) {
      const Texture& t = asset.textures[i];
      std::string name = fileSafe(t.name, "texture");
      for (int n = 2; !taken.insert(lowered(name)).second; ++n) name = fmt::format("{}_{}", fileSafe(t.name, "texture"), n);
      if (!pngs[i]) return failed(std::move(result), Outcome::InputFailed, pngs[i].error());
      files.emplace_back(p.base / (name + ".png"), std::move(*pngs[i]));
    }
    std::error_code ec;
    fs::create_directories(p.base, ec);
    for (const auto& [out, bytes] : files) {
      if (!s_.overwrite && s_.skipExisting && fs::exists(out, ec)) {
        result.skipped.push_back(out.string());
        continue;
      }
      if (auto written = platform::writeFileAtomic(out.string(), bytes, overwrite()); !written) {
        return failed(std::move(result), Outcome::OutputFailed, written.error());
      }
      result.written.push_back(out.string());
    }
    result.warnings.absorb(asset.provenance);
    if (result.written.empty()) result.outcome = Outcome::Skipped;
    return result;
  }

  // Names that differ only in case would be one file on a case-insensitive file system.
  static std::string lowered(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
  }

  // --to: every file is encoded, then written into its temporary file, before any is moved into
  // place, so a refusal or a failed write leaves no output. `rig` is kept as it was for the check
  // (its meshes lent to the encoder rather than copied).
  std::optional<std::pair<Outcome, Error>> writeToFormat(Rig& rig, const fs::path& out, FileResult& result) {
    auto encoded = encodeForFormatKeeping(rig, *s_.target, out.string(), s_.animTarget, s_.animOut, s_.baseFile ? &*s_.baseFile : nullptr);
    if (!encoded) return std::pair{Outcome::InputFailed, encoded.error()};
    if (!s_.noVerify) {
      releaseUnmeasured(rig, *encoded);  // the rig is not written after the check
      const Provenance measured = measureWritten(rig, *encoded, shared_.read);
      for (const Warning& w : measured.warnings) {
        if (shared_.strict && w.code == kPoseLossCode) {
          return std::pair{Outcome::InputFailed, makeError(ErrorCode::BadValue, fmt::format("{} ({}; strict: nothing was written)", w.message, w.code))};
        }
      }
      encoded->losses.absorb(measured);
    }
    std::vector<std::span<const uint8_t>> parts;  // one each, then `files` points into them
    for (const auto& file : encoded->files) parts.emplace_back(file.second);
    std::vector<platform::FileToWrite> files;
    for (size_t i = 0; i < parts.size(); ++i) files.push_back({encoded->files[i].first, {&parts[i], 1}});
    if (auto written = platform::writeFilesAtomic(files, overwrite()); !written) return std::pair{Outcome::OutputFailed, written.error()};
    bool wroteOut = false;  // a clip format given -o 'clips/{clip}.ska' writes files named after the clips instead
    for (const auto& [path, bytes] : encoded->files) {
      if (path != out.string()) result.written.push_back(path);
      else wroteOut = true;
    }
    if (wroteOut) result.written.push_back(out.string());
    result.losses.absorb(encoded->losses);
    return std::nullopt;
  }

  platform::Overwrite overwrite() const { return s_.overwrite ? platform::Overwrite::Replace : platform::Overwrite::Refuse; }

  static FileResult failed(FileResult r, Outcome outcome, Error e) {
    // Another process wrote the output after this one checked (a refused write names its file).
    if (e.code == ErrorCode::Usage && e.message == platform::kExistsMessage && !e.file.empty()) e = existsError(e.file);
    if (e.file.empty()) e.file = r.input;
    r.outcome = outcome;
    r.error = std::move(e);
    return r;
  }

  const ConvertSettings& s_;
  const SharedInputs& shared_;
  SharedInputs* only_;
  unsigned imageThreads_;
};

// A batch never overwrites one input's output with another's: the first input in order keeps
// the name, later ones with the same base fail before anything is read.
std::vector<std::optional<Error>> claim(const std::vector<Plan>& plans) {
  std::vector<std::optional<Error>> clashes(plans.size());
  std::map<fs::path, std::string> claimed;
  for (size_t i = 0; i < plans.size(); ++i) {
    auto [it, fresh] = claimed.emplace(plans[i].base, plans[i].input.path);
    if (fresh) continue;
    Error e = makeError(ErrorCode::Usage, fmt::format("would overwrite {}, already written for {}; convert inputs with the same name "
                                                      "into different -o folders",
                                                      plans[i].single.string(), it->second));
    e.file = plans[i].input.path;
    clashes[i] = std::move(e);
  }
  return clashes;
}

void report(const FileResult& r, const ConvertSettings& s, ProgressBar& progress) {
  if (r.outcome == Outcome::InputFailed || r.outcome == Outcome::OutputFailed) {
    progress.clear();
    printError(r.error);
    return;
  }
  if (s.verbose) {
    for (const std::string& out : r.skipped) {
      progress.clear();
      message("rigport: kept {} (--skip-existing)\n", out);
    }
  }
  if (s.quiet || r.outcome == Outcome::Skipped) return;
  // Losses of a --to conversion are listed one by one: the user must see what the game file lacks.
  for (const Warning& w : r.losses.warnings) {
    progress.clear();
    message("rigport: warning: {}: {}{}\n", printable(r.input), printable(w.message), w.count > 1 ? fmt::format(" ({} times)", w.count) : "");
  }
  const size_t warnings = r.warnings.warningCount();
  if (warnings == 0 && !s.verbose && r.coverage.dropped.empty()) return;
  progress.clear();
  if (s.verbose) {
    for (const std::string& out : r.written) message("rigport: wrote {}\n", printable(out));
  }
  if (r.coverage.clips > 0 && (s.verbose || !r.coverage.dropped.empty())) {
    message("rigport: {}: {}\n", printable(r.input), printable(r.coverage.summary()));
  }
  if (warnings > 0) {
    message("rigport: warning: {}: {} warning{} (`rigport info` lists them)\n", printable(r.input), warnings, warnings == 1 ? "" : "s");
  }
}

Json toJson(const FileResult& r) {
  Json warnings = Json::array();
  for (const Warning& w : r.warnings.warnings) warnings.push_back(Json{{"code", w.code}, {"message", w.message}, {"count", w.count}});
  for (const Warning& w : r.losses.warnings) warnings.push_back(Json{{"code", w.code}, {"message", w.message}, {"count", w.count}});
  Json out{{"input", r.input}, {"written", r.written}, {"skipped", r.skipped}, {"warnings", std::move(warnings)},
           {"coverage", coverageToJson(r.coverage)}};
  const bool failed = r.outcome == Outcome::InputFailed || r.outcome == Outcome::OutputFailed;
  out["error"] = failed ? errorToJson(r.error) : Json(nullptr);
  return out;
}

int runConvert(ConvertSettings& s) {
  auto shared = loadSharedInputs(s.inputs);
  if (!shared) {
    printError(shared.error());
    if (s.json) {
      result("{}\n", Json{{"converted", 0}, {"failed", s.files.size()}, {"files", Json::array()}, {"error", errorToJson(shared.error())}}
                             .dump(2, ' ', false, Json::error_handler_t::replace));
    }
    return kExitInputFailed;
  }
  BatchSelection selection{s.include, shared->skeleton.has_value()};
  const BatchInputs walked = expandInputs(s.files, selection);
  for (const Error& e : walked.skipped) message("rigport: warning: {}\n", e.describe());
  for (const Error& e : walked.unreadable) printError(e);
  const std::vector<BatchInput>& inputs = walked.files;
  if (!s.to.empty()) {
    auto target = targetFormat(s.to);
    if (!target) return printError(target.error()), kExitUsage;
    s.target = *target;
    if (s.separateFiles) return message("rigport: error: --gltf and --to {} exclude each other\n", s.to), kExitUsage;
  }
  // -o out.gltf names a .gltf: a .glb's bytes under that name would surprise every glTF reader.
  if (s.target == nullptr && fs::path(s.output).extension() == ".gltf") s.separateFiles = true;
  if (!s.animOut.empty()) {
    if (s.target == nullptr) return message("rigport: error: --anim-out goes with --to FORMAT\n"), kExitUsage;
    if ((s.target->carries & kCarriesAnimations) != 0) {
      message("rigport: error: --anim-out: {} stores animations in its own file\n", s.target->name);
      return kExitUsage;
    }
    auto animTarget = animationFormat(s.animOut);
    if (!animTarget) return printError(animTarget.error()), kExitUsage;
    s.animTarget = *animTarget;
  }
  if (s.noVerify && s.target == nullptr) return message("rigport: error: --no-verify goes with --to FORMAT\n"), kExitUsage;
  if (!s.base.empty()) {
    if (s.target == nullptr) return message("rigport: error: --base goes with --to FORMAT\n"), kExitUsage;
    if (auto takes = baseFormat(*s.target, s.base); !takes) return printError(takes.error()), kExitUsage;
    if (!namesAFile(s) || inputs.size() > 1) {
      return message("rigport: error: --base {}: give one input and -o the file to write\n", s.base), kExitUsage;
    }
    s.baseFile = BaseFile{s.base, shared->read};
  }
  if ((namesAFile(s) || !s.animOut.empty()) && inputs.size() > 1) {
    message("rigport: error: -o {} names one file, but {} inputs were given; give a folder\n", s.output, inputs.size());
    return kExitUsage;
  }
  if (inputs.empty()) {
    if (!walked.unreadable.empty()) return kExitInputFailed;  // said above
    message("rigport: error: no input files: the folders given hold no file{}\n",
               s.include.empty() ? " of a format rigport reads (`rigport formats`; --include picks files by name)" : " that --include matches");
    return kExitInputFailed;
  }
  std::vector<Plan> plans;
  plans.reserve(inputs.size());
  for (const BatchInput& input : inputs) plans.push_back(plan(input, s));
  const std::vector<std::optional<Error>> clashes = claim(plans);

  const unsigned jobs = s.jobs == 0 ? defaultJobs() : s.jobs;
  // -j N bounds the threads: the files' workers take min(N, files) of them, and each file's PNGs
  // get its share of the rest (a single file all N; a batch of more files than N, one each).
  const unsigned fileWorkers = static_cast<unsigned>(std::min<size_t>(std::max(1u, jobs), plans.size()));
  Converter converter(s, *shared, plans.size() == 1 ? &*shared : nullptr, std::max(1u, jobs / fileWorkers));
  ProgressBar progress(plans.size());
  const InterruptGuard interrupt;
  Json files = Json::array();
  for (const Error& e : walked.unreadable) files.push_back(Json{{"input", e.file}, {"error", errorToJson(e)}});
  // A folder the walk could not list fails as an input does: its files were never converted.
  size_t converted = 0, skipped = 0, inputFailures = walked.unreadable.size(), outputFailures = 0;
  const std::function<FileResult(size_t)> work = [&](size_t i) {
    if (!clashes[i]) return converter.convert(plans[i]);
    FileResult r;
    r.input = plans[i].input.path;
    r.outcome = Outcome::InputFailed;
    r.error = *clashes[i];
    return r;
  };
  const std::function<void(size_t, FileResult&&)> done = [&](size_t i, FileResult&& result) {
    converted += result.outcome == Outcome::Converted ? 1 : 0;
    skipped += result.outcome == Outcome::Skipped ? 1 : 0;
    inputFailures += result.outcome == Outcome::InputFailed ? 1 : 0;
    outputFailures += result.outcome == Outcome::OutputFailed ? 1 : 0;
    report(result, s, progress);
    if (s.json) files.push_back(toJson(result));
    progress.show(i + 1, fs::path(plans[i].input.path).filename().string());
  };
  const size_t finished = walked.unreadable.size() + runInOrder<FileResult>(plans.size(), jobs, work, done, &InterruptGuard::requested);
  progress.clear();
  const size_t total = plans.size() + walked.unreadable.size();
  const size_t failed = inputFailures + outputFailures;
  // -q keeps a script's stderr empty when every file went well; what failed or was cut short still shows.
  if ((total > 1 && !s.quiet) || failed > 0 || skipped > 0 || finished < total) {
    message("rigport: converted {} of {} file{}{}{}{}\n", converted, total, total == 1 ? "" : "s",
               failed > 0 ? fmt::format(", {} failed", failed) : "", skipped > 0 ? fmt::format(", {} skipped (output exists)", skipped) : "",
               finished < total ? fmt::format(", {} not started: interrupted", total - finished) : "");
  }
  if (s.json) {
    result("{}\n", Json{{"converted", converted}, {"skipped", skipped}, {"failed", failed}, {"interrupted", finished < total},
                            {"files", std::move(files)}}
                           .dump(2, ' ', false, Json::error_handler_t::replace));
  }
  if (finished < total) return kExitInterrupted;
  if (outputFailures > 0) return kExitOutputFailed;
  return failed > 0 ? kExitInputFailed : kExitOk;
}

}  // namespace

void addConvertCommand(CLI::App& app, int& exitCode) {
  auto s = std::make_shared<ConvertSettings>();
  CLI::App* cmd = app.add_subcommand("convert", "Convert files to glTF 2.0 (.glb by default)");
  cmd->add_option("files", s->files,
                  "Input files (models, packages, or clip files with --skeleton) and folders: a folder's files are found "
                  "recursively and keep their place below it under -o")
      ->required();
  cmd->add_option("--include", s->include,
                  "In folders, convert the files matching GLOB (a shell pattern on the file name, or on the path below the "
                  "folder when it has a '/'); default: every file of a format rigport reads. Repeatable");
  cmd->add_option("-j,--jobs", s->jobs, "Convert N files at once; 0 (default): one per core. A single file's textures are encoded as PNGs on N "
                  "threads (a batch's on those its files leave). Output is the same for any N")
      ->capture_default_str();
  CLI::Option* skip = cmd->add_flag("--skip-existing", s->skipExisting, "Keep outputs that exist and do not read their inputs again");
  cmd->add_flag("--overwrite", s->overwrite, "Replace outputs that exist (without it, an existing output is an error)")->excludes(skip);
  cmd->add_option("-o,--output", s->output,
                  "Output folder (created if missing), or the output file when one input gives one rig (ends in .glb or .gltf)")
      ->capture_default_str();
  cmd->add_flag("--merge", s->merge, "Write the clips of one input that play on the same skeleton as animations of one file");
  cmd->add_flag("--gltf", s->separateFiles, "Write <stem>.gltf + <stem>.bin instead of <stem>.glb");
  addInputOptions(*cmd, s->inputs);
  addStanceOptions(*cmd, s->stance, true);
  cmd->add_flag("-q,--quiet", s->quiet, "Do not print warning counts, nor the summary of a batch in which every file was converted");
  cmd->add_option("--resample", s->resampleFps, "Key every channel of a bone at the same times, FPS per second")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("-v,--verbose", s->verbose, "List each file written and the bind coverage of each input");
  cmd->add_option("--to", s->to, "Write this format (a name from `rigport formats` with a writer) instead of glTF, e.g. renderware-dff");
  cmd->add_option("--anim-out", s->animOut,
                  "With --to a format without animations: write the clips here (walk.anm: all in one file; 'clips/{clip}.anm': one per clip)");
  cmd->add_option("--base", s->base,
                  "With --to: write into a copy of this original (a Sims 3 package: resources the rig holds with other content "
                  "replaced, its new ones added, every other resource kept byte for byte under its key; a DFF: the frames, "
                  "vertices, triangles and skin the edit changed written, every other chunk kept byte for byte; a Sluggers model "
                  "block: the bone SRTs, vertices and weights the edit changed written in the original's own form, every other byte "
                  "kept; an RW4 arena: the inverse bind matrices, vertices and weights the edit changed written in their own element "
                  "types, every other byte kept, no object moved)");
  cmd->add_flag("--no-verify", s->noVerify,
                "With --to: do not read the encoded files back to measure them against the input (by default, a pose beyond "
                "the format's stated precision is a pose-loss warning giving each measure's worst error in metres and where; "
                "with --strict an error, nothing written)");
  cmd->add_flag("--json", s->json, "Print a JSON summary on stdout: files written, warnings, coverage, errors");
  cmd->callback([s, &exitCode] { exitCode = runConvert(*s); });
}

}  // namespace rigport::cli
