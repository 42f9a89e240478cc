// `rigport convert FILE... [-o DIR|FILE] [--gltf] [--anim FILE]... [--skeleton FILE[#ITEM]]
// [--resample FPS] [--strict] [--to FORMAT [--anim-out FILE]]`: each
// input to DIR/<stem>.glb, or DIR/<stem>/<item>.glb when it yields several rigs (or .gltf + .bin);
// with --to, to DIR/<stem>.<format's extension> through that format's writer (cli/convert_to.hpp).
// A bad input is reported and skipped; the batch goes on.
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/convert_to.hpp"
#include "cli/exit_codes.hpp"
#include "cli/inputs.hpp"
#include "cli/progress.hpp"
#include "core/file_io.hpp"
#include "core/resample.hpp"
#include "export/gltf.hpp"
#include "export/json_report.hpp"

namespace rigport::cli {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

struct ConvertSettings {
  std::vector<std::string> files;
  InputOptions inputs;
  std::string output = ".";
  bool separateFiles = false;  // --gltf: .gltf + .bin instead of .glb
  bool quiet = false;
  bool verbose = false;
  bool json = false;
  float resampleFps = 0.0f;    // --resample FPS (core/resample.hpp); 0: keys as the files have them
  std::string to;              // --to FORMAT: a registry writer instead of glTF
  std::string animOut;         // --anim-out FILE: where --to writes animations its format cannot hold
  const FormatInfo* target = nullptr;      // resolved --to
  const FormatInfo* animTarget = nullptr;  // resolved --anim-out
};

enum class Outcome { Converted, InputFailed, OutputFailed };

struct FileResult {
  std::string input;
  Outcome outcome = Outcome::Converted;
  Error error;                        // when not Converted
  std::vector<std::string> written;   // output files, in order
  Provenance warnings;                // of every rig written
  Provenance losses;                  // --to: what the target format could not hold
  BindReport coverage;
};

bool namesAFile(const ConvertSettings& s) {
  const std::string ext = fs::path(s.output).extension().string();
  if (s.target != nullptr) return namesFileOf(*s.target, s.output);
  return ext == ".glb" || ext == ".gltf";
}

// A rig name as a file name: path separators and control characters become '_'.
std::string fileSafe(const std::string& name) {
  std::string out = name.empty() ? std::string("rig") : name;
  for (char& c : out) {
    if (c == '/' || c == '\\' || c == ':' || static_cast<unsigned char>(c) < 0x20) c = '_';
  }
  if (out == "." || out == "..") out = "_";
  return out;
}

// Writes both files of a .gltf export, the .bin first; if the .gltf then fails, the .bin goes too.
Status writeGltfPair(const fs::path& gltfPath, const GltfFiles& files) {
  fs::path binPath = gltfPath;
  binPath.replace_extension(".bin");
  RP_CHECK(writeFileAtomic(binPath.string(), files.bin));
  const auto* text = reinterpret_cast<const uint8_t*>(files.json.data());
  if (auto written = writeFileAtomic(gltfPath.string(), {text, files.json.size()}); !written) {
    std::error_code ec;
    fs::remove(binPath, ec);
    return written.error();
  }
  return Ok{};
}

// Where each rig of `input` goes.
std::vector<fs::path> outputPaths(const std::string& input, const std::vector<AssembledRig>& rigs, const ConvertSettings& s) {
  const std::string ext = s.target != nullptr ? firstExtension(*s.target) : s.separateFiles ? ".gltf" : ".glb";
  if (namesAFile(s)) return {fs::path(s.output)};
  const std::string stem = fs::path(input).stem().string();
  if (rigs.size() == 1) return {fs::path(s.output) / (stem + ext)};
  std::vector<fs::path> paths;
  for (const AssembledRig& r : rigs) paths.push_back(fs::path(s.output) / stem / (fileSafe(r.rig.name) + ext));
  return paths;
}

// Exports and writes one rig: an export error fails the input, a write error the output.
std::optional<std::pair<Outcome, Error>> writeRig(const Rig& rig, const fs::path& out, bool separateFiles) {
  if (separateFiles) {
    auto files = exportGltf(rig, out.stem().string() + ".bin");
    if (!files) return std::pair{Outcome::InputFailed, files.error()};
    if (auto written = writeGltfPair(out, *files); !written) return std::pair{Outcome::OutputFailed, written.error()};
    return std::nullopt;
  }
  auto glb = exportGlb(rig);
  if (!glb) return std::pair{Outcome::InputFailed, glb.error()};
  if (auto written = writeFileAtomic(out.string(), *glb); !written) return std::pair{Outcome::OutputFailed, written.error()};
  return std::nullopt;
}

class Converter {
 public:
  Converter(const ConvertSettings& s, const SharedInputs& shared) : s_(s), shared_(shared) {}

  FileResult convert(const std::string& path) {
    FileResult result;
    result.input = path;
    auto rigs = loadInput(path, shared_);
    if (!rigs) return failed(std::move(result), Outcome::InputFailed, rigs.error());
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
    const std::vector<fs::path> outs = outputPaths(path, *rigs, s_);
    for (size_t i = 0; i < rigs->size(); ++i) {
      if (auto clash = claim(path, outs[i]); !clash) return failed(std::move(result), Outcome::InputFailed, clash.error());
    }
    for (size_t i = 0; i < rigs->size(); ++i) {
      const AssembledRig& a = (*rigs)[i];
      std::error_code ec;
      if (outs[i].has_parent_path()) fs::create_directories(outs[i].parent_path(), ec);
      if (s_.target != nullptr) {
        if (auto failure = writeToFormat(a.rig, outs[i], result)) return failed(std::move(result), failure->first, std::move(failure->second));
      } else if (auto failure = writeRig(a.rig, outs[i], s_.separateFiles)) {
        return failed(std::move(result), failure->first, std::move(failure->second));
      }
      result.written.push_back(outs[i].string());
      result.warnings.absorb(a.rig.provenance);
      result.coverage.add(a.coverage);
    }
    return result;
  }

 private:
  // --to: every file is encoded before any is written, so a refusal leaves no output.
  std::optional<std::pair<Outcome, Error>> writeToFormat(const Rig& rig, const fs::path& out, FileResult& result) {
    auto encoded = encodeForFormat(rig, *s_.target, out.string(), s_.animTarget, s_.animOut);
    if (!encoded) return std::pair{Outcome::InputFailed, encoded.error()};
    for (const auto& [path, bytes] : encoded->files) {
      std::error_code ec;
      if (fs::path(path).has_parent_path()) fs::create_directories(fs::path(path).parent_path(), ec);
      if (auto written = writeFileAtomic(path, bytes); !written) return std::pair{Outcome::OutputFailed, written.error()};
      if (path != out.string()) result.written.push_back(path);
    }
    result.losses.absorb(encoded->losses);
    return std::nullopt;
  }

  static FileResult failed(FileResult r, Outcome outcome, Error e) {
    if (e.file.empty()) e.file = r.input;
    r.outcome = outcome;
    r.error = std::move(e);
    return r;
  }

  // A batch never overwrites one input's output with another's.
  Status claim(const std::string& input, const fs::path& out) {
    auto [it, fresh] = claimed_.emplace(out.lexically_normal(), input);
    if (fresh || it->second == input) return Ok{};
    return makeError(ErrorCode::Usage, fmt::format("would overwrite {}, already written for {}; convert inputs with the same name "
                                                   "into different -o folders",
                                                   out.string(), it->second));
  }

  const ConvertSettings& s_;
  const SharedInputs& shared_;
  std::map<fs::path, std::string> claimed_;
};

void report(const FileResult& r, const ConvertSettings& s, ProgressBar& progress) {
  if (r.outcome != Outcome::Converted) {
    progress.clear();
    printError(r.error);
    return;
  }
  if (s.quiet) return;
  // Losses of a --to conversion are listed one by one: the user must see what the game file lacks.
  for (const Warning& w : r.losses.warnings) {
    progress.clear();
    fmt::print(stderr, "rigport: warning: {}: {}{}\n", r.input, w.message, w.count > 1 ? fmt::format(" ({} times)", w.count) : "");
  }
  const size_t warnings = r.warnings.warningCount();
  if (warnings == 0 && !s.verbose && r.coverage.dropped.empty()) return;
  progress.clear();
  if (s.verbose) {
    for (const std::string& out : r.written) fmt::print(stderr, "rigport: wrote {}\n", out);
  }
  if (r.coverage.clips > 0 && (s.verbose || !r.coverage.dropped.empty())) {
    fmt::print(stderr, "rigport: {}: {}\n", r.input, r.coverage.summary());
  }
  if (warnings > 0) {
    fmt::print(stderr, "rigport: warning: {}: {} warning{} (`rigport info` lists them)\n", r.input, warnings, warnings == 1 ? "" : "s");
  }
}

Json toJson(const FileResult& r) {
  Json warnings = Json::array();
  for (const Warning& w : r.warnings.warnings) warnings.push_back(Json{{"code", w.code}, {"message", w.message}, {"count", w.count}});
  for (const Warning& w : r.losses.warnings) warnings.push_back(Json{{"code", w.code}, {"message", w.message}, {"count", w.count}});
  Json out{{"input", r.input}, {"written", r.written}, {"warnings", std::move(warnings)}, {"coverage", coverageToJson(r.coverage)}};
  out["error"] = r.outcome == Outcome::Converted ? Json(nullptr) : errorToJson(r.error);
  return out;
}

int runConvert(ConvertSettings& s) {
  auto shared = loadSharedInputs(s.inputs);
  if (!shared) {
    printError(shared.error());
    if (s.json) {
      fmt::print("{}\n", Json{{"converted", 0}, {"failed", s.files.size()}, {"files", Json::array()}, {"error", errorToJson(shared.error())}}.dump(2));
    }
    return kExitInputFailed;
  }
  if (!s.to.empty()) {
    auto target = targetFormat(s.to);
    if (!target) return printError(target.error()), kExitUsage;
    s.target = *target;
    if (s.separateFiles) return fmt::print(stderr, "rigport: error: --gltf and --to {} exclude each other\n", s.to), kExitUsage;
  }
  if (!s.animOut.empty()) {
    if (s.target == nullptr) return fmt::print(stderr, "rigport: error: --anim-out goes with --to FORMAT\n"), kExitUsage;
    if ((s.target->carries & kCarriesAnimations) != 0) {
      fmt::print(stderr, "rigport: error: --anim-out: {} stores animations in its own file\n", s.target->name);
      return kExitUsage;
    }
    auto animTarget = animationFormat(s.animOut);
    if (!animTarget) return printError(animTarget.error()), kExitUsage;
    s.animTarget = *animTarget;
  }
  if ((namesAFile(s) || !s.animOut.empty()) && s.files.size() > 1) {
    fmt::print(stderr, "rigport: error: -o {} names one file, but {} inputs were given; give a folder\n", s.output, s.files.size());
    return kExitUsage;
  }
  Converter converter(s, *shared);
  ProgressBar progress(s.files.size());
  Json files = Json::array();
  size_t converted = 0, inputFailures = 0, outputFailures = 0;
  for (size_t i = 0; i < s.files.size(); ++i) {
    progress.show(i, fs::path(s.files[i]).filename().string());
    const FileResult result = converter.convert(s.files[i]);
    converted += result.outcome == Outcome::Converted ? 1 : 0;
    inputFailures += result.outcome == Outcome::InputFailed ? 1 : 0;
    outputFailures += result.outcome == Outcome::OutputFailed ? 1 : 0;
    report(result, s, progress);
    if (s.json) files.push_back(toJson(result));
  }
  progress.show(s.files.size(), "");
  progress.clear();
  const size_t failed = inputFailures + outputFailures;
  if (s.files.size() > 1 || failed > 0) {
    fmt::print(stderr, "rigport: converted {} of {} file{}{}\n", converted, s.files.size(), s.files.size() == 1 ? "" : "s",
               failed > 0 ? fmt::format(", {} failed", failed) : "");
  }
  if (s.json) {
    fmt::print("{}\n", Json{{"converted", converted}, {"failed", failed}, {"files", std::move(files)}}
                           .dump(2, ' ', false, Json::error_handler_t::replace));
  }
  if (outputFailures > 0) return kExitOutputFailed;
  return failed > 0 ? kExitInputFailed : kExitOk;
}

}  // namespace

void addConvertCommand(CLI::App& app, int& exitCode) {
  auto s = std::make_shared<ConvertSettings>();
  CLI::App* cmd = app.add_subcommand("convert", "Convert files to glTF 2.0 (.glb by default)");
  cmd->add_option("files", s->files, "Input files: models, packages, or clip files with --skeleton")->required();
  cmd->add_option("-o,--output", s->output,
                  "Output folder (created if missing), or the output file when one input gives one rig (ends in .glb or .gltf)")
      ->capture_default_str();
  cmd->add_flag("--gltf", s->separateFiles, "Write <stem>.gltf + <stem>.bin instead of <stem>.glb");
  addInputOptions(*cmd, s->inputs);
  cmd->add_flag("-q,--quiet", s->quiet, "Do not print warning counts");
  cmd->add_option("--resample", s->resampleFps, "Key every channel of a bone at the same times, FPS per second")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("-v,--verbose", s->verbose, "List each file written and the bind coverage of each input");
  cmd->add_option("--to", s->to, "Write this format (a name from `rigport formats` with a writer) instead of glTF, e.g. renderware-dff");
  cmd->add_option("--anim-out", s->animOut,
                  "With --to a format without animations: write the clips here (walk.anm: all in one file; 'clips/{clip}.anm': one per clip)");
  cmd->add_flag("--json", s->json, "Print a JSON summary on stdout: files written, warnings, coverage, errors");
  cmd->callback([s, &exitCode] { exitCode = runConvert(*s); });
}

}  // namespace rigport::cli
