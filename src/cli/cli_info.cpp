// `rigport info FILE... [--json]`: what each file holds: its items, and per rig or clip set the
// counts a user checks first (bones, joints, vertices, influences, clips, keys, warnings).
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/inputs.hpp"
#include "cli/stance.hpp"
#include "cli/streams.hpp"
#include "core/repair.hpp"
#include "export/json_report.hpp"
#include "formats/registry.hpp"

namespace rigport::cli {
namespace {

using Json = nlohmann::ordered_json;

struct InfoSettings {
  std::vector<std::string> files;
  InputOptions inputs;
  StanceOptions stance;  // --rest-pose: what convert would rest the rigs in, and its warnings
  bool json = false;
};

// Names and messages carry text from the file: printed through printable() (core/error.hpp).
void printWarnings(const Provenance& p) {
  result("  warnings        {}\n", p.warningCount());
  for (const Warning& w : p.warnings) {
    result("    [{}] {}{}\n", w.code, printable(w.message), w.count > 1 ? fmt::format(" (x{})", w.count) : "");
  }
}

// Clip names can be long: the name column is as wide as the longest, the numbers stay aligned.
void printClips(const std::vector<AnimationCounts>& animations) {
  size_t width = 4;
  for (const AnimationCounts& a : animations) width = std::max(width, printable(a.name).size());
  result("    {:<{}}  {:>9}  {:>6}  {:>8}  {:>6}\n", "clip", width, "seconds", "tracks", "keys", "events");
  for (const AnimationCounts& a : animations) {
    result("    {:<{}}  {:>9.3f}  {:>6}  {:>8}  {:>6}\n", a.name.empty() ? "(unnamed)" : printable(a.name), width, a.duration, a.tracks,
               a.keys, a.events);
  }
}

// A texture's name, and the id materials may bind it by when it has one.
std::string textureLabel(const Texture& t) { return t.id.empty() ? printable(t.name) : fmt::format("{} ({})", printable(t.name), printable(t.id)); }

// A texture file's textures, or those a rig's materials bound (missing ones are warnings).
void printTextures(const std::vector<Texture>& textures) {
  size_t width = 7;
  for (const Texture& t : textures) width = std::max(width, textureLabel(t).size());
  result("  textures        {}\n", textures.size());
  result("    {:<{}}  {:>11}  {:<6}  {:>4}  {:<6}  {}\n", "texture", width, "size", "format", "mips", "alpha", "file");
  for (const Texture& t : textures) {
    const ImageLevel& l = t.image.levels.front();
    result("    {:<{}}  {:>11}  {:<6}  {:>4}  {:<6}  {}\n", textureLabel(t), width, fmt::format("{}x{}", l.width, l.height), t.pixelFormat,
               t.image.levels.size(), alphaModeName(t.image.alpha), printable(t.file));
  }
}

Json texturesToJson(const std::vector<Texture>& textures) {
  Json out = Json::array();
  for (const Texture& t : textures) {
    const ImageLevel& l = t.image.levels.front();
    out.push_back(Json{{"name", t.name}, {"width", l.width}, {"height", l.height}, {"format", t.pixelFormat},
                       {"mips", t.image.levels.size()}, {"alpha", alphaModeName(t.image.alpha)}, {"file", t.file}});
    if (!t.id.empty()) out.back()["id"] = t.id;
  }
  return out;
}

void printRig(const AssembledRig& assembled, const std::vector<MeshCounts>& meshes) {
  const Rig& rig = assembled.rig;
  const Skeleton& sk = rig.skeleton;
  result("  rig             {}\n", printable(rig.name));
  const nlohmann::json rw = rig.extras.is_object() ? rig.extras.value("renderware", nlohmann::json()) : nlohmann::json();
  if (rw.is_object()) result("  renderware      {} ({})\n", rw.value("version", "?"), rw.value("platform", "?"));
  result("  bones           {}\n", sk.bones.size());
  result("  joints          {}\n", sk.jointList().size());
  result("  meshes          {}\n", meshes.size());
  result("  vertices        {}\n", totalVertices(meshes));
  result("  max influences  {}\n", maxInfluences(meshes));
  result("  animations      {}\n", rig.animations.size());
  if (!rig.animations.empty()) printClips(countAnimations(rig.animations));
  if (assembled.coverage.clips > 0) result("  binding         {}\n", assembled.coverage.summary());
  if (!rig.textures.empty()) printTextures(rig.textures);
  printWarnings(rig.provenance);
}

// A clip set of a file that also holds rigs: the rig it plays on by assemble()'s rule, with coverage.
struct PlaysOn {
  std::string skeleton;  // empty: its own hash-named nodes
  std::string best;      // the rig holding most of its tracks
  size_t found = 0, tracks = 0;
};

std::optional<PlaysOn> playsOn(ClipSet& clips, const std::vector<Rig>& rigs) {
  if (rigs.empty()) return std::nullopt;
  const SkeletonChoice c = chooseSkeleton(clips, rigs, clips.provenance);
  return PlaysOn{c.rig ? rigs[*c.rig].name : std::string(), rigs[c.best.value_or(0)].name, c.found, c.tracks};
}

// What `info` keeps of a clip set: the set without its animations, what they count, and the rig it
// plays on. A file read clip by clip (ReadOptions::clipsRead: a Sims 3 package) has each set
// summarised as it is handed over, and its keys let go, so `info` never holds the file's clips
// (issue 30: peak memory within 1.5 x the file). The package reader reads its RIGs before handing
// any clip, so the rig each plays on is chosen among the rigs a whole read gives.
struct ClipSetSummary {
  ClipSet clips;  // with no animations
  std::vector<AnimationCounts> animations;
  std::optional<PlaysOn> on;
};

// Choosing the rig warns into the set's provenance, so it comes first. The animations stay in
// `clips`: a package reader decodes the next clip into the arrays of the one it handed.
ClipSetSummary summarise(ClipSet& clips, const std::vector<Rig>& rigs) {
  ClipSetSummary s{ClipSet{}, {}, playsOn(clips, rigs)};
  s.animations = countAnimations(clips.animations);
  std::swap(s.clips.animations, clips.animations);
  std::swap(s.clips, clips);
  return s;
}

Json playsOnToJson(const std::optional<PlaysOn>& p) {
  if (!p) return nullptr;
  return Json{{"skeleton", p->skeleton.empty() ? Json(nullptr) : Json(p->skeleton)},
              {"best", p->best},
              {"found", p->found},
              {"tracks", p->tracks}};
}

void printClipSet(const ClipSetSummary& summary) {
  const ClipSet& clips = summary.clips;
  const std::optional<PlaysOn>& on = summary.on;
  result("  clips           {} ({} clip{}, no skeleton of their own)\n", printable(clips.name), summary.animations.size(),
             summary.animations.size() == 1 ? "" : "s");
  if (clips.wants) result("  wants skeleton  {}\n", printable(clips.wants->name));
  if (on && !on->skeleton.empty()) result("  plays on        {} ({} of {} tracks found)\n", printable(on->skeleton), on->found, on->tracks);
  if (on && on->skeleton.empty()) {
    result("  plays on        its own hash-named nodes ({} holds {} of {} tracks)\n", printable(on->best), on->found, on->tracks);
  }
  printClips(summary.animations);
  printWarnings(clips.provenance);
}

void printItems(const std::vector<ItemInfo>& items) {
  size_t width = 4, idWidth = 6;  // ids can be long (a package's TYPE:GROUP:INSTANCE)
  for (const ItemInfo& i : items) width = std::max(width, printable(i.name).size()), idWidth = std::max(idWidth, i.id.size());
  result("  items           {}\n", items.size());
  result("    {:>{}}  {:<10}  {:<{}}  {:>10}\n", "id", idWidth, "kind", "name", width, "bytes");
  for (const ItemInfo& i : items) result("    {:>{}}  {:<10}  {:<{}}  {:>10}\n", i.id, idWidth, i.kind, printable(i.name), width, i.bytes);
}

bool bindsAnything(const InputOptions& o) { return !o.animations.empty() || !o.skeleton.empty(); }

// What `info` keeps of the meshes of a file read mesh by mesh (ReadOptions::meshBuilt), per rig
// (by its place in the Asset): each mesh's counts after its repairs, and those repairs' warnings,
// which are given after the reader's as an ordinary read and repairRig() give them. The meshes
// themselves are let go, so `info` never holds a whole model (issue 11: peak memory within 1.5 x
// the file).
struct StreamedMeshes {
  std::map<size_t, std::vector<MeshCounts>> counts;
  std::map<size_t, std::vector<Warning>> repairWarnings;
};

std::function<Status(Rig&, size_t, size_t)> summariseAndRelease(StreamedMeshes& streamed, bool strict) {
  return [&streamed, strict](Rig& rig, size_t r, size_t m) -> Status {
    // Repairs warn into the rig's provenance: a scratch one here, so that theirs stay apart.
    Provenance scratch;
    scratch.format = rig.provenance.format;
    scratch.axes = rig.provenance.axes;
    std::swap(rig.provenance, scratch);
    const Status repaired = repairMesh(rig, m, RepairOptions{strict});
    std::swap(rig.provenance, scratch);
    RP_CHECK(repaired);
    std::vector<Warning>& warnings = streamed.repairWarnings[r];
    warnings.insert(warnings.end(), scratch.warnings.begin(), scratch.warnings.end());
    Mesh& mesh = rig.meshes[m];
    streamed.counts[r].push_back(countMesh(mesh));
    Mesh kept;
    kept.name = std::move(mesh.name);
    kept.attachBone = mesh.attachBone;
    mesh = std::move(kept);
    return Ok{};
  };
}

constexpr const char* kNoRig = "this file holds no rig (no skeleton, skinned mesh or clip); its items are listed above, not converted";

// One file: its items and what reading it gives (assembled with --anim/--skeleton when given).
Status infoOne(const std::string& path, const InfoSettings& s, const SharedInputs& shared, Json& json) {
  RP_ASSIGN(const std::vector<ItemInfo> items, listItems(path, shared.read));
  const bool assembles = bindsAnything(s.inputs) || !s.inputs.items.empty() || !s.inputs.clips.empty();
  StreamedMeshes streamed;
  std::vector<ClipSetSummary> clipSets;
  // The counts of the animations a reader handed over one by one (ReadOptions::animationRead: a GTA
  // IFP package, a RenderWare .anm), in the order of its clip sets' animations, which it keeps
  // without their keys.
  std::vector<AnimationCounts> handed;
  ReadOptions read = shared.read;
  if (!assembles) {
    read.meshBuilt = summariseAndRelease(streamed, shared.strict);
    read.animationRead = [&handed](Animation& decoded) {
      handed.push_back(countAnimation(decoded));
      Animation counted;
      counted.name = std::move(decoded.name);
      counted.duration = decoded.duration;
      decoded = std::move(counted);
    };
  }
  // Clip by clip only while the output is the whole read's: not with --strict (damage anywhere, a
  // clip's included, refuses the file).
  if (!assembles && !shared.strict) {
    read.clipsRead = [&clipSets](Asset& sofar, size_t, size_t) -> Status {
      clipSets.push_back(summarise(sofar.clips.front(), sofar.rigs));
      return Ok{};
    };
  }
  Result<Asset> loaded = loadAsset(path, read);
  if (!loaded && !clipSets.empty()) {
    // A read that fails once clips were handed over is read again whole (as convert's item-by-item
    // path does), so that the error given is always the whole read's.
    clipSets.clear();
    streamed = StreamedMeshes{};
    read.clipsRead = nullptr;
    loaded = loadAsset(path, read);
  }
  if (!loaded) return loaded.error();
  Asset asset = std::move(*loaded);
  const std::vector<Texture> textures = std::move(asset.textures);  // a texture file's own
  const std::string format = asset.provenance.format;
  const Provenance fileProvenance = asset.provenance;  // what a file with no rig and no clip has to say
  std::vector<AssembledRig> rigs;
  std::vector<std::vector<MeshCounts>> meshCounts;
  if (assembles) {
    RP_ASSIGN(rigs, assembleInput(std::move(asset), shared));
  } else {
    if (shared.strict) RP_CHECK(refuseDroppedParts(asset));
    size_t nextHanded = 0;
    for (ClipSet& c : asset.clips) {  // those not handed over whole (ReadOptions::clipsRead)
      ClipSetSummary& summary = clipSets.emplace_back(summarise(c, asset.rigs));
      // A handed animation's counts are those taken as it was handed; its name is the whole read's
      // (an unnamed clip is named after its set once the read knows how many are unnamed).
      for (AnimationCounts& a : summary.animations) {
        if (nextHanded == handed.size()) break;
        a = AnimationCounts{std::move(a.name), handed[nextHanded].duration, handed[nextHanded].tracks, handed[nextHanded].keys,
                            handed[nextHanded].events};
        ++nextHanded;
      }
    }
    // What convert would repair shows as warnings (with --strict, as the error convert would give).
    for (size_t i = 0; i < asset.rigs.size(); ++i) {
      Rig& r = asset.rigs[i];
      for (const Warning& w : streamed.repairWarnings[i]) r.provenance.warn(w.code, w.message, w.count);
      RP_CHECK(repairRig(r, RepairOptions{shared.strict}));  // the rest: bones, animations, meshes not streamed
      rigs.push_back(AssembledRig{std::move(r), {}});
    }
  }
  bindInputTextures(rigs, path, shared);
  for (AssembledRig& r : rigs) RP_CHECK(settleStance(r.rig, s.stance, false));
  for (size_t i = 0; i < rigs.size(); ++i) {
    const auto streamedCounts = streamed.counts.find(i);  // a rig with no mesh streamed is counted as it is
    meshCounts.push_back(streamedCounts != streamed.counts.end() ? std::move(streamedCounts->second) : countMeshes(rigs[i].rig));
  }
  if (s.json) {
    Json rigsJson = Json::array();
    for (size_t i = 0; i < rigs.size(); ++i) {
      const AssembledRig& r = rigs[i];
      Json summary = rigSummaryToJson(r.rig, meshCounts[i]);
      if (!r.rig.textures.empty()) summary["textures"] = texturesToJson(r.rig.textures);
      if (r.coverage.clips > 0) summary["coverage"] = coverageToJson(r.coverage);
      rigsJson.push_back(std::move(summary));
    }
    Json clipsJson = Json::array();
    for (size_t i = 0; i < clipSets.size(); ++i) {
      Json c = clipSetToJson(clipSets[i].clips, clipSets[i].animations);
      c["playsOn"] = playsOnToJson(clipSets[i].on);
      clipsJson.push_back(std::move(c));
    }
    json = Json{{"file", path}, {"format", format}, {"items", itemsToJson(items)}, {"rigs", std::move(rigsJson)}, {"clipSets", std::move(clipsJson)}};
    if (!textures.empty()) json["textures"] = texturesToJson(textures);
    if (rigs.empty() && clipSets.empty()) {
      Json warnings = Json::array();
      for (const Warning& w : fileProvenance.warnings) warnings.push_back(Json{{"code", w.code}, {"message", w.message}, {"count", w.count}});
      json["noRig"] = kNoRig;
      json["warnings"] = std::move(warnings);
    }
    return Ok{};
  }
  result("{}\n", printable(path));
  result("  format          {}\n", format);
  if (items.size() > 1 && textures.empty()) printItems(items);  // a texture file's items are its textures, listed below
  for (size_t i = 0; i < rigs.size(); ++i) printRig(rigs[i], meshCounts[i]);
  for (const ClipSetSummary& c : clipSets) printClipSet(c);
  if (!textures.empty()) printTextures(textures);
  if (rigs.empty() && clipSets.empty() && !textures.empty()) {
    result("  rig             none: this file holds textures (`convert` writes them as PNG files{})\n",
               format == "renderware-txd"  ? "; a model beside it with its name, or given --txd, takes them"
               : format == "rw4-arena"     ? "; a model arena whose materials name their GUIDs takes them from beside it "
                                             "(0x<guid>.psg, <model>_Textures.psg) or given --txd"
                                           : "");
    printWarnings(fileProvenance);
  } else if (rigs.empty() && clipSets.empty()) {
    result("  rig             none: {}\n", kNoRig);
    printWarnings(fileProvenance);
  }
  return Ok{};
}

int runInfo(const InfoSettings& s) {
  auto shared = loadSharedInputs(s.inputs);
  if (!shared) {
    printError(shared.error());
    return kExitInputFailed;
  }
  size_t failures = 0;
  Json all = Json::array();
  for (const std::string& path : s.files) {
    Json json;
    if (auto done = infoOne(path, s, *shared, json); !done) {
      Error e = done.error();
      if (e.file.empty()) e.file = path;
      printError(e);
      ++failures;
      json = Json{{"file", path}, {"error", errorToJson(e)}};
    }
    if (s.json) all.push_back(std::move(json));
  }
  if (s.json) result("{}\n", all.dump(2, ' ', false, Json::error_handler_t::replace));
  return failures == 0 ? kExitOk : kExitInputFailed;
}

}  // namespace

void addInfoCommand(CLI::App& app, int& exitCode) {
  auto s = std::make_shared<InfoSettings>();
  CLI::App* cmd = app.add_subcommand("info", "Show what each file holds: items, bones, meshes, clips, warnings");
  cmd->add_option("files", s->files, "Input files")->required();
  addInputOptions(*cmd, s->inputs);
  addStanceOptions(*cmd, s->stance, false);
  cmd->add_flag("--json", s->json, "Print a JSON array, one object per file: items, rigs, clip sets (or an error)");
  cmd->callback([s, &exitCode] { exitCode = runInfo(*s); });
}

}  // namespace rigport::cli
