// `rigport convert FILE... [-o DIR] [--gltf] [--anim FILE...] [--resample FPS] [--strict]`: each
// input to DIR/<stem>.glb (or .gltf + .bin). A bad input is reported and skipped; the batch goes on.
#include <filesystem>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/inputs.hpp"
#include "cli/progress.hpp"
#include "core/file_io.hpp"
#include "core/repair.hpp"
#include "core/resample.hpp"
#include "export/gltf.hpp"
#include "formats/registry.hpp"

namespace rigport::cli {
namespace {

namespace fs = std::filesystem;

struct ConvertSettings {
  std::vector<std::string> files;
  std::vector<std::string> animations;
  std::string outputDir = ".";
  bool separateFiles = false;  // --gltf: .gltf + .bin instead of .glb
  bool quiet = false;
  bool strict = false;         // --strict: a repair (core/repair.hpp) is an error
  float resampleFps = 0.0f;    // --resample FPS (core/resample.hpp); 0: keys as the files have them
};

enum class Outcome { Converted, InputFailed, OutputFailed };

struct FileResult {
  Outcome outcome = Outcome::Converted;
  Error error;            // when not Converted
  size_t warnings = 0;    // the reader's and binder's warnings, when Converted
};

FileResult inputFailed(Error e, const std::string& path) {
  if (e.file.empty()) e.file = path;
  return FileResult{Outcome::InputFailed, std::move(e), 0};
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

fs::path outputPath(const std::string& input, const ConvertSettings& s) {
  return fs::path(s.outputDir) / (fs::path(input).stem().string() + (s.separateFiles ? ".gltf" : ".glb"));
}

FileResult convertOne(const std::string& path, const fs::path& out, const std::vector<Rig>& animations,
                      const ConvertSettings& s) {
  auto rig = loadModel(path, animations);
  if (!rig) return inputFailed(rig.error(), path);
  const FormatInfo* format = findFormat(rig->provenance.format);
  if (format != nullptr && format->animationOnly) {
    return inputFailed(makeError(ErrorCode::Usage, fmt::format("{} files carry only animations; pass this one with --anim next to a model",
                                                               format->name)),
                       path);
  }
  if (auto repaired = repairRig(*rig, RepairOptions{s.strict}); !repaired) return inputFailed(repaired.error(), path);
  if (s.resampleFps > 0.0f) {
    if (auto resampled = resampleAnimations(*rig, s.resampleFps); !resampled) return inputFailed(resampled.error(), path);
  }
  if (s.separateFiles) {
    auto files = exportGltf(*rig, out.stem().string() + ".bin");
    if (!files) return inputFailed(files.error(), path);
    if (auto written = writeGltfPair(out, *files); !written) return FileResult{Outcome::OutputFailed, written.error(), 0};
  } else {
    auto glb = exportGlb(*rig);
    if (!glb) return inputFailed(glb.error(), path);
    if (auto written = writeFileAtomic(out.string(), *glb); !written) return FileResult{Outcome::OutputFailed, written.error(), 0};
  }
  FileResult result;
  for (const Warning& w : rig->provenance.warnings) result.warnings += w.count;
  return result;
}

int runConvert(const ConvertSettings& s) {
  size_t animFailures = 0;
  const std::vector<Rig> animations = loadAnimationFiles(s.animations, animFailures);
  ProgressBar progress(s.files.size());
  std::map<fs::path, std::string> claimed;  // output -> the input that writes it
  auto sameOutput = [&](const std::string& path, const fs::path& out) -> std::optional<FileResult> {
    auto [it, fresh] = claimed.emplace(out.lexically_normal(), path);
    if (fresh) return std::nullopt;
    return inputFailed(makeError(ErrorCode::Usage, fmt::format("would overwrite {}, already written for {}; convert "
                                                               "inputs with the same name into different -o folders",
                                                               out.string(), it->second)),
                       path);
  };
  size_t converted = 0, inputFailures = 0, outputFailures = 0;
  for (size_t i = 0; i < s.files.size(); ++i) {
    const std::string& path = s.files[i];
    progress.show(i, fs::path(path).filename().string());
    const fs::path out = outputPath(path, s);
    std::optional<FileResult> clash = sameOutput(path, out);
    const FileResult result = clash ? std::move(*clash) : convertOne(path, out, animations, s);
    switch (result.outcome) {
      case Outcome::Converted:
        ++converted;
        if (result.warnings > 0 && !s.quiet) {
          progress.clear();
          fmt::print(stderr, "rigport: warning: {}: {} warning{} (`rigport info` lists them)\n", path, result.warnings, result.warnings == 1 ? "" : "s");
        }
        break;
      case Outcome::InputFailed:
      case Outcome::OutputFailed:
        ++(result.outcome == Outcome::InputFailed ? inputFailures : outputFailures);
        progress.clear();
        printError(result.error);
        break;
    }
  }
  progress.show(s.files.size(), "");
  progress.clear();
  const size_t failed = inputFailures + outputFailures + animFailures;
  if (s.files.size() > 1 || failed > 0) {
    fmt::print(stderr, "rigport: converted {} of {} file{}{}\n", converted, s.files.size(), s.files.size() == 1 ? "" : "s",
               failed > 0 ? fmt::format(", {} failed", failed) : "");
  }
  if (outputFailures > 0) return kExitOutputFailed;
  return failed > 0 ? kExitInputFailed : kExitOk;
}

}  // namespace

void addConvertCommand(CLI::App& app, int& exitCode) {
  auto s = std::make_shared<ConvertSettings>();
  CLI::App* cmd = app.add_subcommand("convert", "Convert model files to glTF 2.0 (.glb by default)");
  cmd->add_option("files", s->files, "Input files (models with a skeleton and/or meshes)")->required();
  cmd->add_option("-o,--output", s->outputDir, "Output directory (created if missing)")->capture_default_str();
  cmd->add_flag("--gltf", s->separateFiles, "Write <stem>.gltf + <stem>.bin instead of <stem>.glb");
  cmd->add_option("--anim", s->animations, "Animation-only files (.anm, .ifp) to bind to every input's skeleton");
  cmd->add_flag("-q,--quiet", s->quiet, "Do not print warning counts");
  cmd->add_option("--resample", s->resampleFps, "Key every channel of a bone at the same times, FPS per second")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--strict", s->strict, "Fail on damage that would be repaired (non-finite vertices, negative key times)");
  cmd->callback([s, &exitCode] { exitCode = runConvert(*s); });
}

}  // namespace rigport::cli
