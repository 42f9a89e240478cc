// `rigport view FILE... [--anim FILE]... [--rest-pose CLIP[@SECONDS]|bind] [--no-ground] [-o page.html]
// [--open]`: converts each input as
// `convert` does (every rig it yields) and writes ONE self-contained HTML page (three.js viewer bundled in, every .glb
// embedded as base64), so a file can be inspected in a browser, offline, before opening Blender.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/inputs.hpp"
#include "cli/stance.hpp"
#include "cli/viewer_page.hpp"
#include "cli/streams.hpp"
#include "demo/character.hpp"
#include "export/gltf.hpp"
#include "platform/files.hpp"
#include "platform/process.hpp"

namespace rigport::cli {
namespace {

namespace fs = std::filesystem;

struct ViewSettings {
  std::vector<std::string> files;
  InputOptions inputs;
  StanceOptions stance;  // --rest-pose, --no-ground
  std::string output;  // empty: <stem of the first input>.html in the current folder, like convert
  bool open = false;
  bool demo = false;   // the procedural demo character instead of (or besides) files
  DemoOptions demoOptions;
};

struct EmbeddedModel {
  std::string name;
  std::vector<uint8_t> glb;
};

void appendBase64(std::string& out, const std::vector<uint8_t>& bytes) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  out.reserve(out.size() + (bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8) | bytes[i + 2];
    out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], k[v & 63]};
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = uint32_t{bytes[i]} << 16;
    out += {k[v >> 18], k[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = (uint32_t{bytes[i]} << 16) | (uint32_t{bytes[i + 1]} << 8);
    out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], '='};
  }
}

// File names go into an HTML attribute: escape what could end it or start markup.
std::string escapeAttribute(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

std::string buildPage(const std::vector<EmbeddedModel>& models) {
  std::string html(viewerPageHead());
  for (const EmbeddedModel& m : models) {
    html += fmt::format("<script type=\"application/octet-stream\" class=\"rigport-model\" data-name=\"{}\">", escapeAttribute(m.name));
    appendBase64(html, m.glb);  // base64 holds no '<', so the element cannot end early
    html += "</script>\n";
  }
  html += viewerPageTail();
  return html;
}

// Starts the user's browser on the page; a failure is only a warning (the page is written).
void openInBrowser(const fs::path& page) {
  const std::string target = fs::absolute(page).string();
  const std::string failed = platform::openWithShell(target);
  if (!failed.empty()) message("rigport: warning: {}; open {} in a browser\n", failed, target);
}

int runView(const ViewSettings& s) {
  if (s.files.empty() && !s.demo) {
    message("rigport: error: nothing to view: give model files or --demo\n");
    return kExitUsage;
  }
  auto shared = loadSharedInputs(s.inputs);
  if (!shared) {
    printError(shared.error());
    return kExitInputFailed;
  }
  size_t failures = 0;
  std::vector<EmbeddedModel> models;
  // `name` labels the model in the page; `source` names it in errors (the path given).
  auto add = [&](const std::string& name, const std::string& source, const Rig& rig, const GltfOptions& options) {
    auto glb = exportGlb(rig, options);
    if (!glb) {
      Error e = glb.error();
      if (e.file.empty()) e.file = source;
      printError(e);
      ++failures;
      return;
    }
    if (const size_t w = rig.provenance.warningCount(); w > 0) {
      message("rigport: warning: {}: {} warning{} (listed in the page)\n", source, w, w == 1 ? "" : "s");
    }
    models.push_back({name, std::move(*glb)});
  };
  for (const std::string& path : s.files) {
    auto rigs = loadInput(path, *shared);
    if (!rigs) {
      Error e = rigs.error();
      if (e.file.empty()) e.file = path;
      printError(e);
      ++failures;
      continue;
    }
    const std::string file = fs::path(path).filename().string();
    for (AssembledRig& r : *rigs) {
      GltfOptions options;
      if (auto lift = settleStance(r.rig, s.stance, true); lift) {
        options.groundLift = *lift;
      } else {
        Error e = lift.error();
        e.file = path;
        printError(e);
        ++failures;
        continue;
      }
      add(rigs->size() == 1 ? file : file + "/" + r.rig.name, path, r.rig, options);
    }
  }
  if (s.demo) add("demo_character", "--demo", makeDemoCharacter(s.demoOptions), GltfOptions{});
  if (models.empty()) {
    message("rigport: error: no model could be converted; no page written\n");
    return kExitInputFailed;
  }

  const fs::path out = !s.output.empty() ? fs::path(s.output)
                       : !s.files.empty() ? fs::path(fs::path(s.files.front()).stem().string() + ".html")
                                          : fs::path("demo_character.html");
  const std::string html = buildPage(models);
  if (auto written = platform::writeFileAtomic(out.string(), {reinterpret_cast<const uint8_t*>(html.data()), html.size()}); !written) {
    printError(written.error());
    return kExitOutputFailed;
  }
  result("wrote {} ({} model{}, {:.1f} MB)\n", out.string(), models.size(), models.size() == 1 ? "" : "s", html.size() / 1e6);
  if (s.open) openInBrowser(out);
  return failures > 0 ? kExitInputFailed : kExitOk;
}

}  // namespace

void addViewCommand(CLI::App& app, int& exitCode) {
  auto s = std::make_shared<ViewSettings>();
  CLI::App* cmd = app.add_subcommand("view", "Write one self-contained HTML page (three.js) showing the converted models");
  cmd->add_option("files", s->files, "Input files (models with a skeleton and/or meshes)");
  addInputOptions(*cmd, s->inputs);
  addStanceOptions(*cmd, s->stance, true);
  cmd->add_option("-o,--output", s->output, "Output page (default: <stem of the first input>.html)");
  cmd->add_flag("--open", s->open, "Open the page in the default browser (xdg-open)");
  cmd->add_flag("--demo", s->demo, "Add the procedural demo character (as `rigport demo` builds it)");
  // The demo's size, so the benchmark rig (bench/gltf_export_bench.cpp) can be viewed and timed.
  cmd->add_option("--demo-vertices", s->demoOptions.vertices, "Demo character: approximate vertex count")->capture_default_str();
  cmd->add_option("--demo-bones", s->demoOptions.bones, "Demo character: total bones (0: the humanoid's 27)")->capture_default_str();
  cmd->add_option("--demo-keys", s->demoOptions.keys, "Demo character: approximate animation keys (0: 30 fps)")->capture_default_str();
  cmd->callback([s, &exitCode] { exitCode = runView(*s); });
}

}  // namespace rigport::cli
