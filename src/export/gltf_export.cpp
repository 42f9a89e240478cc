// exportGlb / exportGltf: prepares the rig (glTF axes, validate()), runs the stages of
// gltf_document.hpp and serialises (format note gltf_ecosystem.md §1.6, §5.9).
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "core/axes.hpp"
#include "core/validate.hpp"
#include "export/gltf.hpp"
#include "export/gltf_document.hpp"

namespace rigport {
namespace {

struct Exported {
  std::string json;
  gltf::BinPieces bin;  // borrows the exported rig's arrays (gltf_buffer.hpp)
  Rig source;           // that rig, when the exporter made or was given it; else the caller's
};

// An upper bound on the binary size, so the buffer is allocated once for large meshes.
size_t estimateBytes(const Rig& rig) {
  size_t bytes = rig.skeleton.bones.size() * 64 + 64;
  for (const Mesh& m : rig.meshes) {
    const size_t sets = m.maxInfluences() > 4 ? 2 : 1;
    bytes += m.positions.size() * (12 + 12 + 8 + (m.skinned() ? sets * (8 + 16) : 0)) + m.indices.size() * 4 + 64;
    for (const MorphTarget& t : m.morphTargets) bytes += (t.positionDeltas.size() + t.normalDeltas.size()) * 12;
  }
  for (const Animation& a : rig.animations) {
    for (const BoneTrack& t : a.tracks) {
      // Per key: a float time and the value, plus two tangents for cubic splines.
      const auto cubic = [](const auto& keys) -> size_t { return keys.interpolation == Interpolation::CubicSpline ? 3 : 1; };
      bytes += t.translation.times.size() * (4 + 12 * cubic(t.translation)) + t.rotation.times.size() * (4 + 16 * cubic(t.rotation)) +
               t.scale.times.size() * (4 + 12 * cubic(t.scale)) + 48;
    }
    for (const MorphWeightTrack& t : a.morphWeights) bytes += (t.times.size() + 3 * t.weights.size()) * 4 + 8;
  }
  return bytes;
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
// but for the vertices own->pending maps.
Result<Exported> build(const Rig& rig, const gltf::OwnMeshes* own, std::vector<Animation>& animations, const AxisSystem& sourceAxes,
                       const GltfOptions& options, const std::string& binUri, ExportCache* cache) {
  RP_CHECK(validate(rig));

  gltf::Document doc;
  doc.buffer.reserve(estimateBytes(rig));
  RP_CHECK(gltf::addSkeleton(doc, rig, options, cache));
  gltf::addMaterials(doc, rig);
  RP_CHECK(gltf::addMeshes(doc, rig, own, options));
  RP_CHECK(gltf::addAnimations(doc, rig, animations));
  RP_CHECK(gltf::addTextures(doc, rig, options));  // last: its images are bufferViews after every accessor's

  Exported out;
  out.bin = doc.buffer.finish();
  // One allocation: for a clip package the animations and accessors are nearly all of the text,
  // and growing it by doubling copied it again and again.
  out.json.reserve(256 + doc.skeleton->nodesJson.size() + rig.skeleton.bones.size() * 160 + doc.animations.size() +
                   doc.buffer.jsonBytesEstimate());
  gltf::JsonWriter w(out.json);
  w.startObject();
  writeAsset(w, rig, sourceAxes, options);
  if (!doc.sceneNodes.empty()) {
    w.key("scene").uint(0);
    w.key("scenes").startArray();
    w.startObject();
    w.key("name").string(sceneName(doc, rig));
    w.key("nodes").uints(doc.sceneNodes);
    gltf::writeExtras(w, "extras", rig.extras, {}, [](gltf::JsonWriter&, size_t) {});
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
  // The animations are written already (gltf_animation.cpp), the accessors and bufferViews are
  // records the buffer writes as text (gltf_buffer.hpp): both go in as they are.
  if (doc.animations.size() > 2) w.key("animations").raw(doc.animations);
  w.endObject();
  if (doc.buffer.hasViews()) {
    out.json.back() = ',';
    doc.buffer.appendJson(out.json);
    out.json += '}';
  }
  return out;
}

// Conversion needs a copy; a rig already in glTF axes is exported as is (no copy of a large mesh),
// and the buffer then borrows from the caller's rig.
Result<Exported> buildFrom(const Rig& rig, const GltfOptions& options, const std::string& binUri, ExportCache* cache) {
  if (rig.provenance.axes.isGltf()) {
    std::vector<Animation> animations = rig.animations;
    return build(rig, nullptr, animations, rig.provenance.axes, options, binUri, cache);
  }
  Rig converted = rig;
  const gltf::OwnMeshes own{&converted.meshes, convertAxesLeavingVertices(converted, AxisSystem{})};
  RP_ASSIGN(Exported e, build(converted, &own, converted.animations, rig.provenance.axes, options, binUri, cache));
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

// Header (12 bytes) and the JSON chunk's header; the JSON text as it is; its padding with spaces
// and the BIN chunk's header. The BIN payload is padded with zeros already (finish() did).
Result<GlbParts> glbParts(Exported e) {
  const size_t jsonLength = (e.json.size() + 3) & ~size_t{3};
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
  parts.tail.assign(jsonLength - e.json.size() + (binChunk > 0 ? 8 : 0), ' ');
  if (binChunk > 0) {
    uint8_t* b = parts.tail.data() + (jsonLength - e.json.size());
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

std::vector<std::span<const uint8_t>> GlbParts::pieces() const {
  std::vector<std::span<const uint8_t>> all;
  all.reserve(3 + bin.pieces.size());
  all.emplace_back(head);
  all.emplace_back(reinterpret_cast<const uint8_t*>(json.data()), json.size());
  all.emplace_back(tail);
  all.insert(all.end(), bin.pieces.begin(), bin.pieces.end());
  return all;
}

Result<GlbParts> exportGlbParts(Rig rig, const GltfOptions& options, ExportCache* cache) {
  const AxisSystem sourceAxes = rig.provenance.axes;
  const gltf::OwnMeshes own{&rig.meshes, convertAxesLeavingVertices(rig, AxisSystem{})};
  RP_ASSIGN(Exported e, build(rig, &own, rig.animations, sourceAxes, options, {}, cache));
  e.source = std::move(rig);
  return glbParts(std::move(e));
}

Result<std::vector<uint8_t>> exportGlb(const Rig& rig, const GltfOptions& options, ExportCache* cache) {
  RP_ASSIGN(auto built, buildFrom(rig, options, {}, cache));
  RP_ASSIGN(const GlbParts parts, glbParts(std::move(built)));
  std::vector<uint8_t> glb;
  join(parts, glb);
  return glb;
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
  return GltfFiles{std::move(e.json), e.bin.joined()};
}

}  // namespace rigport
