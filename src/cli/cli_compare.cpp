// `rigport compare A B`: how far apart two rigs are as a client poses them (core/compare.hpp), for
// the last step of modding: the edited .glb against the game file written from it. Each file is
// read and assembled as `convert` reads it; the worst error of each measure is printed with where
// it happens, and the exit code says whether every one is within --tolerance.
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/inputs.hpp"
#include "cli/streams.hpp"
#include "core/compare.hpp"
#include "formats/registry.hpp"
#include "pipeline/verify.hpp"

namespace rigport::cli {
namespace {

using Json = nlohmann::ordered_json;

struct CompareSettings {
  std::string first, second;
  InputOptions inputs;  // the first file's; --clip, --strict, --memory-limit and the rest apply to both
  std::vector<std::string> secondAnimations;  // --anim-b
  std::string secondSkeleton;                 // --skeleton-b
  std::vector<std::string> secondItems;       // --item-b
  std::optional<double> tolerance;
  float rate = 30.0f;
  bool allowMissing = false;
  bool json = false;
};

// One side: read and assembled as `convert` does, which must give one rig; rigs that are one
// skeleton with its clips split over them are that rig with every clip.
Result<Rig> loadSide(const std::string& path, const InputOptions& options, const char* itemFlag) {
  RP_ASSIGN(const SharedInputs shared, loadSharedInputs(options));
  RP_ASSIGN(std::vector<AssembledRig> rigs, loadInput(path, shared));
  joinClipsOfOneSkeleton(rigs);
  if (rigs.size() == 1) return std::move(rigs.front().rig);
  Error e = makeError(ErrorCode::Usage, rigs.empty() ? std::string("holds no rig to compare")
                                                     : fmt::format("holds {} rigs; pick one with {} (`rigport info` lists them)", rigs.size(), itemFlag));
  e.file = path;
  return e;
}

InputOptions secondOptions(const CompareSettings& s) {
  InputOptions o = s.inputs;
  o.animations = s.secondAnimations;
  o.skeleton = s.secondSkeleton;
  o.items = s.secondItems;
  return o;
}

Json whereJson(const Where& w) {
  Json j = Json::object();
  if (!w.clip.empty() || w.time) j["clip"] = w.clip;
  if (w.time) j["time"] = *w.time;
  if (!w.bone.empty()) j["bone"] = w.bone;
  if (w.mesh) j["mesh"] = *w.mesh;
  if (w.vertex) j["vertex"] = *w.vertex;
  return j;
}

bool within(const Measure& m, double tolerance) { return m.worst <= tolerance; }  // NaN is not

// The coarsest stated precision (registry.hpp) of the formats the two rigs were read from: each
// rig's own, each file named on the command line (a clip file bound to a skeleton from another).
struct Precision {
  double ofSize = kDefaultToleranceOfSize;
  std::string format;  // whose precision it is
};

Precision statedPrecision(const CompareSettings& s, const Rig& a, const Rig& b) {
  Precision p;
  auto consider = [&](const FormatInfo* f) {
    if (f != nullptr && f->precision > p.ofSize) p = {f->precision, std::string(f->name)};
  };
  consider(findFormat(a.provenance.format));
  consider(findFormat(b.provenance.format));
  for (const std::string& path : {s.first, s.second}) consider(detectFormat({}, path));
  for (const auto* files : {&s.inputs.animations, &s.secondAnimations})
    for (const std::string& path : *files) consider(detectFormat({}, path));
  return p;
}

struct Verdict {
  Precision precision;
  double tolerance = 0.0;
  size_t beyond = 0;   // measures beyond tolerance
  bool missing = false;
  int exitCode() const { return beyond > 0 || missing ? kExitDiffers : kExitOk; }
};

Verdict judge(const Comparison& c, const CompareSettings& s, const Precision& precision) {
  Verdict v;
  v.precision = precision;
  v.tolerance = s.tolerance.value_or(c.tolerance(precision.ofSize));
  for (const Measure& m : c.measures) v.beyond += within(m, v.tolerance) ? 0 : 1;
  v.missing = !c.unmatched.empty() && !s.allowMissing;
  return v;
}

Json sideJson(const std::string& path, const Rig& rig) {
  return Json{{"file", path}, {"format", rig.provenance.format}, {"rig", rig.name}, {"clips", rig.animations.size()}};
}

Json toJson(const CompareSettings& s, const Rig& a, const Rig& b, const Comparison& c, const Verdict& v) {
  Json measures = Json::array();
  for (const Measure& m : c.measures) {
    measures.push_back({{"measure", m.name}, {"worst", std::isnan(m.worst) ? Json("nan") : Json(m.worst)}, {"compared", m.compared},
                        {"within", within(m, v.tolerance)}, {"where", whereJson(m.where)}});
  }
  Json clips = Json::array();
  for (const ClipPair& p : c.clips) clips.push_back({{"first", p.first}, {"second", p.second}, {"byName", p.byName}, {"samples", p.samples}});
  Json unmatched = Json::array();
  for (const Unmatched& u : c.unmatched) {
    unmatched.push_back({{"kind", unmatchedKindName(u.kind)}, {"onlyIn", u.inFirst ? "first" : "second"}, {"name", u.name}, {"index", u.index},
                         {"count", u.count}});
  }
  return Json{{"first", sideJson(s.first, a)},
              {"second", sideJson(s.second, b)},
              {"modelSize", c.modelSize},
              {"tolerance", v.tolerance},
              {"precision", {{"ofSize", v.precision.ofSize}, {"format", v.precision.format}}},
              {"same", v.exitCode() == kExitOk},
              {"measures", std::move(measures)},
              {"matched", {{"bones", c.bones}, {"meshes", c.meshes}, {"vertices", c.vertices}, {"clips", std::move(clips)}}},
              {"unmatched", std::move(unmatched)},
              {"notes", c.notes}};
}

void printText(const CompareSettings& s, const Rig& a, const Rig& b, const Comparison& c, const Verdict& v) {
  result("first           {} ({}, rig '{}')\n", s.first, a.provenance.format, a.name);
  result("second          {} ({}, rig '{}')\n", s.second, b.provenance.format, b.name);
  result("model size      {:.6g} m (bind-pose bounding-box diagonal)\n", c.modelSize);
  const std::string whose = v.precision.format.empty() ? std::string() : fmt::format(": {}'s stated precision", v.precision.format);
  result("tolerance       {:.6g} m{}\n", v.tolerance, s.tolerance ? "" : fmt::format(" ({:g} x model size{})", v.precision.ofSize, whose));
  size_t samples = 0;
  for (const ClipPair& p : c.clips) samples += p.samples;
  result("matched         {} bones, {} meshes ({} vertices), {} clips ({} samples)\n", c.bones, c.meshes, c.vertices, c.clips.size(), samples);
  result("  {:<14}{:>12}  {}\n", "measure", "worst (m)", "where");
  for (const Measure& m : c.measures) {
    const std::string worst = m.compared == 0 ? "-" : fmt::format("{:.3g}", m.worst);
    result("  {:<14}{:>12}  {}{}\n", m.name, worst, m.compared == 0 ? "" : describeWhere(m.where), within(m, v.tolerance) ? "" : "  BEYOND");
  }
  for (const Unmatched& u : c.unmatched) {
    const std::string what = u.kind == Unmatched::Kind::Vertices ? fmt::format("{} vertices of mesh {} '{}'", u.count, u.index, u.name)
                                                                  : fmt::format("{} '{}'", unmatchedKindName(u.kind), u.name);
    result("only in {:<8}{}\n", u.inFirst ? "first" : "second", what);
  }
  for (const std::string& note : c.notes) result("note            {}\n", note);
  if (v.exitCode() == kExitOk) {
    result("result          same within {:.6g} m\n", v.tolerance);
    return;
  }
  std::string why = v.beyond > 0 ? fmt::format("{} measure{} beyond {:.6g} m", v.beyond, v.beyond == 1 ? "" : "s", v.tolerance) : "";
  if (v.missing) why += fmt::format("{}{} unmatched (--allow-missing to accept)", why.empty() ? "" : "; ", c.unmatched.size());
  result("result          differ: {}\n", why);
}

// When `other` holds more meshes than `side` because its writer split meshes to fit its format's
// vertex limit (core/fit.hpp), `side` is split alike so that vertices pair by index piece by piece,
// as convert's check measures them; said in a note. Only when that gives both the same meshes.
void splitLikeTheOther(Rig& side, const Rig& other, const char* which, std::vector<std::string>& notes) {
  if (other.meshes.size() <= side.meshes.size()) return;
  const FormatInfo* format = findFormat(other.provenance.format);
  if (format == nullptr) return;
  std::optional<Rig> split = splitLikeTheWriter(side, *format);
  if (!split || split->meshes.size() != other.meshes.size()) return;
  for (size_t m = 0; m < other.meshes.size(); ++m)
    if (split->meshes[m].vertexCount() != other.meshes[m].vertexCount()) return;
  const uint32_t limit = format->writeLimits(side).maxVertices;
  for (const Mesh& m : side.meshes) {
    if (m.vertexCount() <= limit) continue;
    notes.push_back(fmt::format("mesh '{}' ({}, {} vertices) compared piece by piece, split as the {} writer splits it ({} vertices a piece at most)",
                                m.name, which, m.vertexCount(), format->name, limit));
  }
  side = std::move(*split);
}

int runCompare(const CompareSettings& s) {
  auto a = loadSide(s.first, s.inputs, "--item");
  if (!a) {
    printError(a.error());
    return kExitInputFailed;
  }
  auto b = loadSide(s.second, secondOptions(s), "--item-b");
  if (!b) {
    printError(b.error());
    return kExitInputFailed;
  }
  std::vector<std::string> splitNotes;
  splitLikeTheOther(*a, *b, "first", splitNotes);
  splitLikeTheOther(*b, *a, "second", splitNotes);
  CompareOptions options;
  options.rate = s.rate;
  makePosable(*a);
  makePosable(*b);
  Comparison c = comparePoses(*a, *b, options);
  c.notes.insert(c.notes.begin(), splitNotes.begin(), splitNotes.end());
  const Verdict v = judge(c, s, statedPrecision(s, *a, *b));
  if (s.json) {
    result("{}\n", toJson(s, *a, *b, c, v).dump(2, ' ', false, Json::error_handler_t::replace));
  } else {
    printText(s, *a, *b, c, v);
  }
  return v.exitCode();
}

}  // namespace

void addCompareCommand(CLI::App& app, int& exitCode) {
  auto s = std::make_shared<CompareSettings>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Measure how far apart two rigs pose (the edited .glb against the game file written from it)");
  cmd->add_option("first", s->first, "The first file (e.g. the edited .glb)")->required();
  cmd->add_option("second", s->second, "The second file (e.g. the game file written from it)")->required();
  addInputOptions(*cmd, s->inputs);
  cmd->add_option("--anim-b", s->secondAnimations, "Like --anim, for the second file; repeatable")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--skeleton-b", s->secondSkeleton, "Like --skeleton, for the second file");
  cmd->add_option("--item-b", s->secondItems, "Like --item, for the second file; repeatable")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--tolerance", s->tolerance, "Largest error in metres that counts as the same (default: the formats' stated precision)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--rate", s->rate, "Samples per second between key times (default 30)")->check(CLI::PositiveNumber);
  cmd->add_flag("--allow-missing", s->allowMissing, "A bone, mesh, vertex or clip that only one file has is listed, not a difference");
  cmd->add_flag("--json", s->json, "Print one JSON object");
  cmd->footer(
      "Both files are read as `convert` reads them; --anim, --skeleton, --item apply to the first file, --anim-b,\n"
      "--skeleton-b, --item-b to the second, the other input options to both. Both rigs are posed in glTF's axes, as\n"
      "a glTF client poses them: rest joints (joint world matrices), bind vertices, and per clip of both (by name, or\n"
      "the only clip of each) joints and vertices at every key time of either side, 1/RATE s apart, and halfway\n"
      "between (weights keys of shape keys too). Vertices are shaped by their morph targets (base + weight x delta,\n"
      "the clip's weights, else the mesh's defaults) before skinning.\n"
      "A joint's error is the farthest its origin or axis tips (at 1/10 of the model size) are apart.\n"
      "Bones match by name, else id, else name hash; vertices by mesh and vertex index. The default tolerance is the\n"
      "coarsest stated precision of the formats read, times the model size (its bind-pose bounding-box diagonal):\n"
      "1e-4 for float values, 1e-3 for quantised keys (sims3-clip, sims3-package, gta-ifp).\n"
      "Exit codes: 0 every measure within --tolerance and nothing unmatched (or --allow-missing); 1 a measure\n"
      "beyond it, something unmatched, or a file that cannot be read; 2 usage error.");
  cmd->callback([s, &exitCode] { exitCode = runCompare(*s); });
}

}  // namespace rigport::cli
