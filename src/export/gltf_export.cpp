// exportGlb / exportGltf: prepares the rig (glTF axes, validate()), runs the stages of
// gltf_document.hpp and serialises (format note gltf_ecosystem.md §1.6, §5.9).
#include <algorithm>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "core/axes.hpp"
#include "core/rig_copy.hpp"
#include "core/validate.hpp"
#include "export/gltf.hpp"
#include "export/gltf_document.hpp"

namespace rigport {
namespace {

struct Exported {
  std::vector<std::string> json;  // the JSON text in pieces, one after another
  gltf::BinPieces bin;  // borrows the exported rig's arrays (gltf_buffer.hpp)
  Rig source;           // that rig, when the exporter made or was given it; else the caller's
};

// About the binary's owned bytes and its accessors (more for most), so the buffer and its records
// are allocated once.
struct BufferSize {
  size_t bytes = 0, accessors = 0;
};
// `meshes`: the rig's, or those its vertex arrays are read from (OwnMeshes::from).
BufferSize estimateBuffer(const Rig& rig, const std::vector<Mesh>& meshes) {
  BufferSize size{rig.skeleton.bones.size() * 64 + 64, 1 + rig.textures.size()};
  for (const Mesh& m : meshes) {
    const size_t sets = m.maxInfluences() > 4 ? 2 : 1;
    size.bytes += m.positions.size() * (12 + 12 + 8 + (m.skinned() ? sets * (8 + 16) : 0)) + m.indices.size() * 4 + 64;
    for (const MorphTarget& t : m.morphTargets) size.bytes += (t.positionDeltas.size() + t.normalDeltas.size()) * 12;
    // Positions, normals, UVs, tangents, two joint and two weight sets; indices per part; morph targets.
    size.accessors += 8 + m.parts.size() + 2 * m.morphTargets.size();
  }
  for (const Animation& a : rig.animations) {
    for (const BoneTrack& t : a.tracks) {
      // What is copied rather than borrowed (gltf_animation.cpp): a cubic spline's values with
      // their tangents, and the inverse of scale keys that a compensation node gets (per key a
      // time and a value, or three for a cubic spline; more where a LINEAR scale is baked, and once
      // per compensated child: this is a hint, not a bound); and up to 3 bytes of padding before
      // each of the track's accessors.
      const auto cubic = [](const auto& keys) { return keys.interpolation == Interpolation::CubicSpline; };
      size.bytes += (cubic(t.translation) ? t.translation.times.size() * 36 : 0) + (cubic(t.rotation) ? t.rotation.times.size() * 48 : 0) +
                    t.scale.times.size() * (cubic(t.scale) ? 4 + 36 + 36 : 4 + 12) + 24;
      // Times and values a key set, twice for scale keys (their inverses, for one compensated child).
      size.accessors += 2 * (!t.translation.empty() + !t.rotation.empty() + 2 * !t.scale.empty());
    }
    for (const MorphWeightTrack& t : a.morphWeights) size.bytes += (t.times.size() + 3 * t.weights.size()) * 4 + 8;
    size.accessors += 2 * a.morphWeights.size();
  }
  return size;
}

void writeAsset(gltf::JsonWriter& w, const Rig& rig, const AxisSystem& axes, const GltfOptions& options) {
  w.key("asset").startObject();
  w.key("version").string("2.0");
  w.key("generator").string(options.generator);
  const Provenance& p = rig.provenance;
  w.key("extras").startObject();
  w.key("format").string(p.format);
  // The name only: an absolute input path would leak the converting machine's folders.
  w.key("file").string(std::filesystem::path(p.file).filename().string());
  static const char* const kAxisNames[] = {"+X", "-X", "+Y", "-Y", "+Z", "-Z"};
  w.key("sourceAxes").startObject();
  w.key("up").string(axes.up == AxisSystem::Up::Y ? "Y" : "Z");
  w.key("forward").string(kAxisNames[static_cast<int>(axes.forward)]);
  w.key("rightHanded").boolean(axes.rightHanded);
  w.key("metresPerUnit").number(axes.metresPerUnit);
  w.endObject();
  w.key("warnings").startArray();
  for (const Warning& warning : p.warnings) {
    w.startObject();
    w.key("code").string(warning.code);
    w.key("message").string(warning.message);
    w.key("count").uint(warning.count);
    w.endObject();
  }
  w.endArray();
  w.endObject();
  w.endObject();
}

// The scene's extras, the rig's. With a cache, their text is kept and reused for the next rig whose
// extras are written alike: a package's clips carry their RIG's, written a clip they were 2.3 M of a
// 500-clip package's instructions.
void writeSceneExtras(gltf::JsonWriter& w, const nlohmann::json& extras, ExportCache* cache) {
  if (cache == nullptr || !extras.is_object() || extras.empty()) {
    gltf::writeExtras(w, "extras", extras, {}, [](gltf::JsonWriter&, size_t) {});
    return;
  }
  if (cache->sceneExtrasJson.empty() || !writtenAlike(cache->sceneExtras, extras)) {
    cache->sceneExtras = extras;
    cache->sceneExtrasJson.clear();
    gltf::JsonWriter x(cache->sceneExtrasJson);
    x.value(extras);  // the members in order, as writeExtras writes them
  }
  w.key("extras").raw(cache->sceneExtrasJson);
}

// buffer.uri is a URI reference (validator INVALID_URI otherwise): bytes outside RFC 3986's
// unreserved set and '/' are percent-encoded, so a file name with spaces or non-ASCII letters works.
std::string uriEncode(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const char ch : path) {
    const unsigned char c = static_cast<unsigned char>(ch);
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    if (alnum || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out.push_back(ch);
    } else {
      out += {'%', hex[c >> 4], hex[c & 15]};
    }
  }
  return out;
}

// three.js renames a node named like the scene, and a clip from another file then drives the
// scene group instead of that bone: the scene's name differs from every node name.
std::string sceneName(const gltf::Document& doc, const Rig& rig) {
  const std::string base = rig.name.empty() ? std::string("Scene") : rig.name;
  std::string name = base;
  for (uint32_t n = 1; doc.nameTaken(name); ++n) name = n == 1 ? base + "_scene" : fmt::format("{}_scene{}", base, n);
  return name;
}

// `binUri` empty: the GLB-embedded buffer, which has no uri (§1.6). `rig` is in glTF axes; the
// source's were `sourceAxes`. `animations` are the rig's, or a copy of them, for the exporter to
// make absolute and normalise in place (it may be rig.animations itself: they are changed only
// after everything else has read them). `own`: rig.meshes when the rig is the exporter's own, to
// be overwritten with what the buffer stores (addMeshes), else null; the rig is then in glTF axes
// but for the vertices own->pending maps and the keys `change` converts clip by clip (both set
// from convertAxesLeavingVerticesAndKeys()'s answer, `change` null when there was none).
Result<Exported> build(const Rig& rig, const gltf::OwnMeshes* own, std::vector<Animation>& animations, const AxisChange* change,
                       const AxisSystem& sourceAxes, const GltfOptions& options, const std::string& binUri, ExportCache* cache) {
  // The clips are validated one by one as addAnimations gets to each: until then, an error gives
  // way to theirs (validateClipsFrom()).
  const std::vector<Mesh>& read = own != nullptr ? *own->from : rig.meshes;
  RP_CHECK(validate(rig, read, MeshChecks::Every, AnimationChecks::None));
  const auto orClipError = [&](Status s) -> Status {
    if (!s) RP_CHECK(gltf::validateClipsFrom(rig, animations, 0));
    return s;
  };

  gltf::Document doc;
  const BufferSize size = estimateBuffer(rig, read);
  doc.buffer.reserve(size.bytes, size.accessors);
  RP_CHECK(orClipError(gltf::addSkeleton(doc, rig, options, cache)));
  gltf::addMaterials(doc, rig);
  RP_CHECK(orClipError(gltf::addMeshes(doc, rig, own, options)));
  gltf::AnimationRecordsText* lastRecords = nullptr;
  if (cache != nullptr && !animations.empty()) {
    if (!cache->records) cache->records = std::make_shared<gltf::AnimationRecordsText>();
    lastRecords = cache->records.get();
  }
  RP_CHECK(gltf::addAnimations(doc, rig, animations, change, lastRecords));
  RP_CHECK(gltf::addTextures(doc, rig, options));  // last: its images are bufferViews after every accessor's

  Exported out;
  out.bin = doc.buffer.finish();
  // The text in pieces: the members written here, then the animations and the accessor and
  // bufferView records, each written apart already (gltf_animation.cpp, gltf_buffer.hpp) and not
  // copied into one text (for a 1,000-clip IFP they are 16 MB of its 16 MB).
  std::string head;
  head.reserve(256 + doc.skeleton->nodesJson.size() + rig.skeleton.bones.size() * 160);
  {
    gltf::JsonWriter w(head);
    w.startObject();
    writeAsset(w, rig, sourceAxes, options);
    if (!doc.sceneNodes.empty()) {
      w.key("scene").uint(0);
      w.key("scenes").startArray();
      w.startObject();
      w.key("name").string(sceneName(doc, rig));
      w.key("nodes").uints(doc.sceneNodes);
      writeSceneExtras(w, rig.extras, cache);
      w.endObject();
      w.endArray();
    }
    if (doc.nodeCount() > 0) gltf::writeNodes(w.key("nodes"), doc, rig);
    if (!doc.meshes.empty()) w.key("meshes").value(doc.meshes);
    if (!doc.materials.empty()) w.key("materials").value(doc.materials);
    if (!doc.textures.empty()) {
      w.key("textures").value(doc.textures);
      w.key("images").value(doc.images);
      w.key("samplers").value(doc.samplers);
    }
    if (doc.skin) {
      w.key("skins").startArray();
      gltf::writeSkin(w, doc, rig);
      w.endArray();
    }
    if (doc.buffer.hasViews()) {
      w.key("buffers").startArray();
      w.startObject();
      w.key("byteLength").uint(out.bin.size);
      if (!binUri.empty()) w.key("uri").string(uriEncode(binUri));
      w.endObject();
      w.endArray();
    }
    if (!doc.extras.empty()) w.key("extras").value(doc.extras);
    // The key and its colon; the value is the next piece.
    if (doc.animations.size() > 2) w.key("animations").raw("");
    w.endObject();
  }
  head.pop_back();  // the closing brace, which goes after the animations and the records
  std::string records;
  if (doc.buffer.hasViews()) {
    records += ',';
    doc.buffer.appendJson(records);
  }
  records += '}';
  out.json.push_back(std::move(head));
  if (doc.animations.size() > 2) out.json.push_back(std::move(doc.animations));
  out.json.push_back(std::move(records));
  return out;
}

// A copy of `rig` for the exporter to convert, made in the cache's spare rig when there is one,
// but for each mesh's positions, normals, influences and influence offsets, which are only sized:
// the passes read those from `rig` and write them converted into the copy (OwnMeshes::from), so
// each is read and written once, not copied first and then read and written again (BENCHMARKS.md,
// BM_ReadDffReusingRigAndExportGlb). Nor are the UVs, which the export reads and the buffer borrows
// from `rig`, nor the indices unless `turnsTriangles` (a mirroring axis change turns the copy's):
// they are only sized, room for their u16 form (writeIndices()).
Rig copyToConvert(const Rig& rig, bool turnsTriangles, ExportCache* cache) {
  Rig copy = cache != nullptr ? std::move(cache->spare) : Rig();
  assignWithoutMeshesOrAnimations(copy, rig);
  copy.meshes.resize(rig.meshes.size());
  for (size_t m = 0; m < rig.meshes.size(); ++m) {
    Mesh& to = copy.meshes[m];
    const Mesh& from = rig.meshes[m];
    to.name = from.name;
    to.positions.resize(from.positions.size());
    to.normals.resize(from.normals.size());
    to.uvs.clear();
    if (turnsTriangles) {
      to.indices = from.indices;
    } else {
      to.indices.resize(from.indices.size());
    }
    to.parts = from.parts;
    to.influenceOffsets.resize(from.influenceOffsets.size());
    to.influences.resize(from.influences.size());
    to.attachBone = from.attachBone;
    to.morphTargets = from.morphTargets;
    to.morphWeights = from.morphWeights;
  }
  copy.animations = rig.animations;
  return copy;
}

// The copy buildFrom() made of `rig` (`source`) back to the cache, once nothing borrows from it. A
// rig in glTF axes was not copied: `source` then holds its clips alone, and the spare is kept.
void keepSpare(const Rig& rig, Rig& source, ExportCache* cache) {
  if (cache != nullptr && !rig.provenance.axes.isGltf()) cache->spare = std::move(source);
}

// Conversion needs a copy; a rig already in glTF axes is exported as is (no copy of a large mesh),
// and the buffer then borrows from the caller's rig.
Result<Exported> buildFrom(const Rig& rig, const GltfOptions& options, const std::string& binUri, ExportCache* cache) {
  if (rig.provenance.axes.isGltf()) {
    std::vector<Animation> animations = rig.animations;
    RP_ASSIGN(Exported e, build(rig, nullptr, animations, nullptr, rig.provenance.axes, options, binUri, cache));
    e.source.animations = std::move(animations);  // the buffer borrows their keys (addAnimations)
    return e;
  }
  const bool turnsTriangles = AxisChange(rig.provenance.axes, AxisSystem{}).mirrors();
  Rig converted = copyToConvert(rig, turnsTriangles, cache);
  const std::optional<AxisChange> change = convertAxesLeavingVerticesAndKeys(converted, AxisSystem{});  // set: the axes differ
  const gltf::OwnMeshes own{&converted.meshes, &rig.meshes, change->vertices(), turnsTriangles};
  RP_ASSIGN(Exported e, build(converted, &own, converted.animations, &*change, rig.provenance.axes, options, binUri, cache));
  e.source = std::move(converted);  // a moved vector keeps its array, so what the buffer borrows stays
  return e;
}

void putU32(uint8_t* p, uint32_t v) {
  // GLB is little-endian (Spec §"Binary glTF Layout").
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
  p[2] = static_cast<uint8_t>(v >> 16);
  p[3] = static_cast<uint8_t>(v >> 24);
}

// The length of the JSON text held in pieces (Exported::json).
size_t textSize(const std::vector<std::string>& pieces) {
  size_t size = 0;
  for (const std::string& p : pieces) size += p.size();
  return size;
}

std::string joinedText(const std::vector<std::string>& pieces) {
  std::string text;
  text.reserve(textSize(pieces));
  for (const std::string& p : pieces) text += p;
  return text;
}

// Header (12 bytes) and the JSON chunk's header; the JSON text as it is; its padding with spaces
// and the BIN chunk's header. The BIN payload is padded with zeros already (finish() did).
Result<GlbParts> glbParts(Exported e) {
  const size_t jsonSize = textSize(e.json);
  const size_t jsonLength = (jsonSize + 3) & ~size_t{3};
  const size_t binChunk = e.bin.size == 0 ? 0 : 8 + e.bin.size;
  const size_t total = 12 + 8 + jsonLength + binChunk;
  if (total > 0xFFFFFFFFu) return makeError(ErrorCode::TooLarge, "the GLB would exceed 4 GiB");
  GlbParts parts;
  parts.head.assign(12 + 8, 0);
  uint8_t* p = parts.head.data();
  putU32(p, 0x46546C67);  // "glTF"
  putU32(p + 4, 2);
  putU32(p + 8, static_cast<uint32_t>(total));
  putU32(p + 12, static_cast<uint32_t>(jsonLength));
  putU32(p + 16, 0x4E4F534A);  // "JSON"
  parts.tail.assign(jsonLength - jsonSize + (binChunk > 0 ? 8 : 0), ' ');
  if (binChunk > 0) {
    uint8_t* b = parts.tail.data() + (jsonLength - jsonSize);
    putU32(b, static_cast<uint32_t>(e.bin.size));
    putU32(b + 4, 0x004E4942);  // "BIN\0"
  }
  parts.json = std::move(e.json);
  parts.bin = std::move(e.bin);
  parts.source = std::move(e.source);
  return parts;
}

// The pieces as one .glb.
void join(const GlbParts& parts, std::vector<uint8_t>& glb) {
  glb.clear();
  glb.reserve(parts.size());
  for (std::span<const uint8_t> p : parts.pieces()) glb.insert(glb.end(), p.begin(), p.end());
}

}  // namespace

size_t GlbParts::size() const { return head.size() + textSize(json) + tail.size() + bin.size; }
std::string GlbParts::jsonText() const { return joinedText(json); }

std::vector<std::span<const uint8_t>> GlbParts::pieces() const {
  std::vector<std::span<const uint8_t>> all;
  all.reserve(2 + json.size() + bin.pieces.size());
  all.emplace_back(head);
  for (const std::string& text : json) all.emplace_back(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  all.emplace_back(tail);
  all.insert(all.end(), bin.pieces.begin(), bin.pieces.end());
  return all;
}

Result<GlbParts> exportGlbParts(Rig rig, const GltfOptions& options, ExportCache* cache) {
  const AxisSystem sourceAxes = rig.provenance.axes;
  const std::optional<AxisChange> change = convertAxesLeavingVerticesAndKeys(rig, AxisSystem{});
  const gltf::OwnMeshes own{&rig.meshes, &rig.meshes, change ? std::optional(change->vertices()) : std::nullopt};
  RP_ASSIGN(Exported e, build(rig, &own, rig.animations, change ? &*change : nullptr, sourceAxes, options, {}, cache));
  e.source = std::move(rig);
  return glbParts(std::move(e));
}

Result<std::vector<uint8_t>> exportGlb(const Rig& rig, const GltfOptions& options, ExportCache* cache) {
  std::vector<uint8_t> glb;
  RP_CHECK(exportGlbInto(rig, glb, options, cache));
  return glb;
}

Status exportGlbInto(const Rig& rig, std::vector<uint8_t>& glb, const GltfOptions& options, ExportCache* cache) {
  RP_ASSIGN(auto built, buildFrom(rig, options, {}, cache));
  RP_ASSIGN(GlbParts parts, glbParts(std::move(built)));
  join(parts, glb);
  keepSpare(rig, parts.source, cache);
  return Ok{};
}

Result<std::vector<uint8_t>> exportGlb(Rig&& rig, const GltfOptions& options, ExportCache* cache) {
  std::vector<uint8_t> glb;
  RP_CHECK(exportGlbInto(std::move(rig), glb, options, cache));
  return glb;
}

Status exportGlbInto(Rig&& rig, std::vector<uint8_t>& glb, const GltfOptions& options, ExportCache* cache) {
  RP_ASSIGN(const GlbParts parts, exportGlbParts(std::move(rig), options, cache));
  join(parts, glb);
  return Ok{};
}

Result<GltfFiles> exportGltf(const Rig& rig, const std::string& binFileName, const GltfOptions& options, ExportCache* cache) {
  if (binFileName.empty()) return makeError(ErrorCode::Usage, "exportGltf needs a file name for the .bin buffer");
  RP_ASSIGN(Exported e, buildFrom(rig, options, binFileName, cache));
  GltfFiles files{joinedText(e.json), e.bin.joined()};
  keepSpare(rig, e.source, cache);
  return files;
}

}  // namespace rigport
