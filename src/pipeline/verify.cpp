#include "pipeline/verify.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "core/fit.hpp"
#include "core/repair.hpp"
#include "formats/registry.hpp"

namespace rigport {
namespace {

namespace fs = std::filesystem;

// A file of `files`, read in memory by its format's reader, in place (`files` outlives the rig read
// back). A sibling it names (a DRS's .ska) is looked for among the files encoded with it, not on
// disk, where an older output may lie.
Result<Asset> readEncoded(const EncodedFiles& files, size_t i, const ReadOptions& options) {
  const auto& [path, bytes] = files.files[i];
  const std::shared_ptr<const Source> source = Source::viewOf(bytes, path);
  ReadContext ctx = fileReadContext(path, options);
  ctx.openSibling = [&files, folder = fs::path(path).parent_path()](std::string_view relative) -> Result<std::shared_ptr<const Source>> {
    const fs::path wanted = (folder / fs::path(relative)).lexically_normal();
    for (const auto& [other, otherBytes] : files.files) {
      if (fs::path(other).lexically_normal() == wanted) return Source::viewOf(otherBytes, other);
    }
    return ioError(wanted.string(), "is not among the files written with it");
  };
  return readAsset(*source, ctx, files.formats[i]);
}

// The written files as one rig, as a user reads them back: the model file (the first that holds a
// rig) with every clip file bound to it, or clip files alone on the skeleton that was encoded (as
// `rigport compare --skeleton-b INPUT` binds them). What does not read or bind goes to `unread`.
std::optional<Rig> readBack(const Rig& source, const EncodedFiles& files, const ReadOptions& options, std::vector<std::string>& unread) {
  std::optional<Asset> model;
  std::vector<ClipSet> clips;
  for (size_t i = 0; i < files.files.size(); ++i) {
    auto asset = readEncoded(files, i, options);
    if (!asset) {
      unread.push_back(fmt::format("{} does not read back ({})", files.files[i].first, asset.error().describe()));
      continue;
    }
    if (!model && !asset->rigs.empty()) {
      model = std::move(*asset);
      continue;
    }
    for (ClipSet& c : asset->clips) clips.push_back(std::move(c));
  }
  if (!model) {
    model.emplace();
    Rig skeleton = source;
    skeleton.animations.clear();
    model->rigs.push_back(std::move(skeleton));
  }
  auto rigs = assemble(std::move(*model), clips, nullptr, AssembleOptions{});
  if (!rigs) {
    unread.push_back(fmt::format("its clips do not bind to the skeleton written ({})", rigs.error().describe()));
    return std::nullopt;
  }
  for (AssembledRig& r : *rigs) {
    // Not strict: repairs only warn. Normals and UVs, which nothing here looks at, as read.
    if (auto repaired = repairRig(r.rig, RepairOptions{.vertexAttributes = false}); !repaired) {
      unread.push_back(repaired.error().describe());
      return std::nullopt;
    }
    if (!r.coverage.dropped.empty()) unread.push_back(fmt::format("of its clips, {}", r.coverage.summary()));
  }
  joinClipsOfOneSkeleton(*rigs);
  if (rigs->size() != 1) {
    unread.push_back(fmt::format("it reads back as {} rigs, not one", rigs->size()));
    return std::nullopt;
  }
  return std::move(rigs->front().rig);
}

// The coarsest stated precision among the formats written, and whose it is.
std::pair<double, const FormatInfo*> coarsestPrecision(const EncodedFiles& files) {
  std::pair<double, const FormatInfo*> out{kFloatPrecision, nullptr};
  for (const FormatInfo* f : files.formats) {
    if (f != nullptr && (out.second == nullptr || f->precision > out.first)) out = {f->precision, f};
  }
  return out;
}

std::string filesText(const EncodedFiles& files) {
  std::string out;
  for (const auto& [path, bytes] : files.files) out += (out.empty() ? "" : " + ") + fs::path(path).filename().string();
  return out;
}

// "rest joints 0.092 m (bone 'clavicle_l')": each measure compared, so that the message states the
// size of every kind of loss, not only of those beyond precision.
std::string measuresText(const Comparison& c) {
  std::string out;
  for (const Measure& m : c.measures) {
    if (m.compared == 0) continue;
    out += fmt::format("{}{} {:.3g} m", out.empty() ? "" : "; ", m.name, m.worst);
    if (!(m.worst == 0.0)) out += fmt::format(" ({})", describeWhere(m.where));
  }
  return out;
}

// Compare's notes (bones not measured, clips paired by being the only ones, vertices posed at fewer times).
std::string notesText(const Comparison& c) {
  std::string out;
  for (const std::string& n : c.notes) out += "; " + n;
  return out;
}

// The format of `files` that holds the model (the meshes), or null.
const FormatInfo* modelFormat(const EncodedFiles& files) {
  const auto model = std::find_if(files.formats.begin(), files.formats.end(), [](const FormatInfo* f) { return (f->carries & kCarriesMesh) != 0; });
  return model != files.formats.end() ? *model : nullptr;
}

// Whether splitLikeTheWriter() splits a mesh of `rig`.
bool splitByTheWriter(const Rig& rig, const FormatInfo& written) {
  const uint32_t limit = written.writeLimits(rig).maxVertices;
  return limit > 0 && std::any_of(rig.meshes.begin(), rig.meshes.end(), [&](const Mesh& m) { return m.positions.size() > limit; });
}

template <class T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

}  // namespace

void joinClipsOfOneSkeleton(std::vector<AssembledRig>& rigs) {
  const auto sameSkeleton = [](const Rig& a, const Rig& b) {
    const auto& x = a.skeleton.bones;
    const auto& y = b.skeleton.bones;
    return x.size() == y.size() && a.meshes.size() == b.meshes.size() &&
           std::equal(x.begin(), x.end(), y.begin(), [](const Bone& p, const Bone& q) { return p.name == q.name && p.parent == q.parent; });
  };
  while (rigs.size() > 1 && sameSkeleton(rigs.front().rig, rigs.back().rig)) {
    auto& clips = rigs.back().rig.animations;
    auto& into = rigs.front().rig.animations;
    into.insert(into.end(), std::make_move_iterator(clips.begin()), std::make_move_iterator(clips.end()));
    rigs.pop_back();
  }
}

std::optional<Rig> splitLikeTheWriter(const Rig& rig, const FormatInfo& written) {
  if (!splitByTheWriter(rig, written)) return std::nullopt;
  const uint32_t limit = written.writeLimits(rig).maxVertices;
  const auto beyond = [&](const Mesh& m) { return m.positions.size() > limit; };
  Rig split = rig;
  split.meshes.clear();
  std::vector<std::pair<std::string, size_t>> splits;
  for (const Mesh& m : rig.meshes) {
    if (!beyond(m)) {
      split.meshes.push_back(m);
      continue;
    }
    std::vector<Mesh> pieces = splitMesh(m, limit);
    splits.emplace_back(m.name, pieces.size());
    for (Mesh& piece : pieces) split.meshes.push_back(std::move(piece));
  }
  followSplitMeshes(split, splits);
  return split;
}

void releaseUnmeasured(Rig& source, const EncodedFiles& files) {
  const FormatInfo* model = modelFormat(files);
  if (model != nullptr && splitByTheWriter(source, *model)) return;
  for (Mesh& mesh : source.meshes) {
    release(mesh.normals);
    release(mesh.uvs);
    release(mesh.indices);
  }
}

Provenance measureWritten(const Rig& source, const EncodedFiles& files, const ReadOptions& read) {
  Provenance out;
  std::vector<std::string> unread;
  std::optional<Rig> written = readBack(source, files, read, unread);
  if (!unread.empty()) {
    std::string why;
    for (const std::string& u : unread) why += (why.empty() ? "" : "; ") + u;
    out.warn(kPoseUnverifiedCode, fmt::format("what was written is not measured {}: {}", written ? "whole" : "at all", why));
  }
  if (!written) return out;
  CompareOptions options;
  options.maxClipVertexPoses = kCheckClipVertexPoses;
  const FormatInfo* model = modelFormat(files);
  const std::optional<Rig> split = model != nullptr ? splitLikeTheWriter(source, *model) : std::nullopt;
  makePosable(*written, /*normals=*/false);  // the rig read back is dropped after
  const Rig& meant = split ? *split : source;
  const auto [ofSize, whose] = coarsestPrecision(files);
  // A write shown within the precision without posing its vertices is not posed (most of the
  // check's time): comparePoses() would find nothing to say.
  if (provablyWithin(meant, *written, ofSize)) return out;
  const Comparison c = comparePoses(meant, *written, options);
  const double tolerance = c.tolerance(ofSize);
  const bool beyond = std::any_of(c.measures.begin(), c.measures.end(), [&](const Measure& m) { return !(m.worst <= tolerance); });
  if (!beyond) return out;
  out.warn(kPoseLossCode, fmt::format("{} read back and posed is beyond {}'s stated precision ({:.3g} m: {:g} x the model's size, {:.3g} m): {}{}",
                                      filesText(files), whose != nullptr ? whose->name : "the format", tolerance, ofSize, c.modelSize,
                                      measuresText(c), notesText(c)));
  return out;
}

}  // namespace rigport
