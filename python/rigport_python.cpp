// The `rigport` Python module (issue 28): the public API (include/rigport/rigport.hpp) for scripts
// and tools whose Python can load it. The Blender add-on keeps to the CLI, so that it also runs in a
// Blender whose Python is not the one this module was built for.
//
// Reports are the CLI's JSON (export/json_report.hpp) turned into Python values by Python's own json
// module, so `rigport.read(path)` holds what `rigport dump`/`info --json` print, in the same words.
// A failure raises rigport.Error, whose message is Error::describe() (file, offset and field) and
// whose `code`, `file`, `offset`, `trail` and `message` attributes give the same parts one by one.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <span>
#include <string>
#include <utility>
#include <vector>

#include <rigport/rigport.hpp>

#include "export/json_report.hpp"

namespace py = pybind11;

namespace rigport::python {
namespace {

// Set when the module is made; raise() fills its instances' attributes.
py::object& errorType() {
  static py::object type;
  return type;
}

py::object toPython(const nlohmann::ordered_json& json) {
  return py::module_::import("json").attr("loads")(json.dump());
}

[[noreturn]] void raise(const Error& error) {
  py::object e = errorType()(error.describe());
  const py::dict parts = toPython(errorToJson(error));  // {code, file, trail: [{where, offset}], message, text}
  for (const char* key : {"code", "file", "trail", "message"}) e.attr(key) = parts[key];
  e.attr("offset") = error.offset ? py::cast(*error.offset) : py::none();
  PyErr_SetObject(errorType().ptr(), e.ptr());
  throw py::error_already_set();
}

template <class T>
T take(Result<T> result) {
  if (!result) raise(result.error());
  return std::move(*result);
}

py::list warningsOf(const Provenance& provenance) {
  py::list out;
  for (const Warning& w : provenance.warnings) {
    py::dict d;
    d["code"] = w.code;
    d["message"] = w.message;
    d["count"] = w.count;
    out.append(std::move(d));
  }
  return out;
}

py::list formatList() {
  py::list out;
  for (const FormatInfo& f : formats()) {
    py::dict d;
    d["name"] = std::string(f.name);
    d["description"] = std::string(f.description);
    d["extensions"] = std::string(f.extensions);
    d["carries"] = carriesText(f.carries);
    d["read"] = f.read != nullptr;
    d["write"] = f.write != nullptr;
    out.append(std::move(d));
  }
  return out;
}

// What a file holds, each rig and clip set as `rigport info --json` summarises it; with `strict`, a
// damaged part the reader dropped is an error.
py::dict readSummary(const std::string& path, bool strict) {
  Asset asset = take(loadAsset(path));
  if (strict) take(refuseDroppedParts(asset));
  nlohmann::ordered_json rigs = nlohmann::ordered_json::array();
  for (const Rig& rig : asset.rigs) rigs.push_back(rigSummaryToJson(rig, countMeshes(rig)));
  nlohmann::ordered_json clipSets = nlohmann::ordered_json::array();
  for (const ClipSet& clips : asset.clips) clipSets.push_back(clipSetToJson(clips, countAnimations(clips.animations)));
  py::dict out;
  out["file"] = path;
  out["format"] = asset.provenance.format;
  out["rigs"] = toPython(rigs);
  out["clip_sets"] = toPython(clipSets);
  out["warnings"] = warningsOf(asset.provenance);
  return out;
}

py::object items(const std::string& path) { return toPython(itemsToJson(take(listItems(path)))); }

struct ConvertArgs {
  std::string input;
  std::string output;
  std::string to;                  // a game format (`convert --to`); empty: glTF (.glb, or .gltf + .bin)
  std::vector<std::string> anim;   // --anim
  std::string skeleton;            // --skeleton FILE[#ITEM]
  std::vector<std::string> item;   // --item
  std::vector<std::string> clip;   // --clip
  std::string restPose;            // --rest-pose CLIP[@SECONDS]|bind
  bool ground = true;              // false: --no-ground
  bool strict = false;             // --strict
};

// The files of one rig as `rigport convert INPUT -o OUTPUT [--to FORMAT]` writes them when OUTPUT
// names a file; none is moved into place before all are complete (platform::writeFilesAtomic).
std::vector<std::pair<std::string, std::vector<uint8_t>>> encode(Rig rig, const ConvertArgs& a, Provenance& losses) {
  if (!a.to.empty()) {
    const FormatInfo* format = take(targetFormat(a.to));
    EncodedFiles encoded = take(encodeForFormat(std::move(rig), *format, a.output, nullptr, ""));
    losses = std::move(encoded.losses);
    return std::move(encoded.files);
  }
  const float lift = take(settleStance(rig, StanceOptions{a.restPose, !a.ground}, true));
  GltfOptions options;
  options.groundLift = lift;
  if (a.output.ends_with(".gltf")) {
    std::string bin = a.output.substr(0, a.output.size() - 5) + ".bin";
    const size_t slash = bin.find_last_of("/\\");
    GltfFiles files = take(exportGltf(rig, slash == std::string::npos ? bin : bin.substr(slash + 1), options));
    return {{std::move(bin), std::move(files.bin)}, {a.output, std::vector<uint8_t>(files.json.begin(), files.json.end())}};
  }
  return {{a.output, take(exportGlb(std::move(rig), options))}};
}

// {written: [paths], warnings: [...]}: the rig's warnings, then what the target format lost.
py::dict convert(const ConvertArgs& a) {
  LoadOptions load;
  load.animations = a.anim;
  load.skeleton = a.skeleton;
  load.items = a.item;
  load.clips = a.clip;
  load.strict = a.strict;
  const SharedInputs shared = take(loadSharedInputs(load));
  std::vector<AssembledRig> rigs = take(loadInput(a.input, shared));
  if (rigs.size() != 1) {
    Error e = makeError(ErrorCode::Usage, std::to_string(rigs.size()) + " rigs in one file: choose one with item=[...]");
    e.file = a.input;
    raise(e);
  }
  Rig& rig = rigs.front().rig;
  py::dict out;
  py::list warnings = warningsOf(rig.provenance);
  Provenance losses;
  const auto files = encode(std::move(rig), a, losses);
  std::vector<std::span<const uint8_t>> parts;
  for (const auto& file : files) parts.emplace_back(file.second);
  std::vector<platform::FileToWrite> toWrite;
  for (size_t i = 0; i < files.size(); ++i) toWrite.push_back({files[i].first, {&parts[i], 1}});
  if (auto ok = platform::writeFilesAtomic(toWrite); !ok) raise(ok.error());
  py::list written;
  for (const auto& file : files) written.append(file.first);
  for (const auto& w : warningsOf(losses)) warnings.append(w);
  out["written"] = std::move(written);
  out["warnings"] = std::move(warnings);
  return out;
}

}  // namespace
}  // namespace rigport::python

PYBIND11_MODULE(rigport, m) {
  using namespace rigport::python;
  m.doc() = "rigport: game skeletons, skins and animations to glTF 2.0 and back";
  m.attr("__version__") = RIGPORT_VERSION;
  errorType() = py::reinterpret_borrow<py::object>(PyErr_NewException("rigport.Error", PyExc_RuntimeError, nullptr));
  m.attr("Error") = errorType();

  m.def("formats", &formatList, "The formats rigport reads and writes, as `rigport formats` lists them.");
  m.def("items", &items, py::arg("path"), "A file's items (a package's resources, an arena's objects), without decoding them.");
  m.def("read", &readSummary, py::arg("path"), py::kw_only(), py::arg("strict") = false,
        "What a file holds: its rigs (bones, meshes, clips) and clip sets as `rigport dump --json` summarises them, "
        "and the file's warnings.");
  m.def(
      "convert",
      [](std::string input, std::string output, std::string to, std::vector<std::string> anim, std::string skeleton,
         std::vector<std::string> item, std::vector<std::string> clip, std::string rest_pose, bool ground, bool strict) {
        return convert(ConvertArgs{std::move(input), std::move(output), std::move(to), std::move(anim), std::move(skeleton),
                                   std::move(item), std::move(clip), std::move(rest_pose), ground, strict});
      },
      py::arg("input"), py::arg("output"), py::kw_only(), py::arg("to") = "", py::arg("anim") = std::vector<std::string>{},
      py::arg("skeleton") = "", py::arg("item") = std::vector<std::string>{}, py::arg("clip") = std::vector<std::string>{},
      py::arg("rest_pose") = "", py::arg("ground") = true, py::arg("strict") = false,
      "Converts one rig as `rigport convert INPUT -o OUTPUT` does: to .glb (or .gltf + .bin), or with to='FORMAT' to "
      "a game format. Returns {'written': [paths], 'warnings': [...]}; raises rigport.Error, writing nothing.");
}
