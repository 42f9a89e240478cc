// Rig mesh → one GPL submesh (sluggers.md §3), the mirror of gpl_reader.cpp.
#include <optional>
#include <span>

#include <fmt/format.h>

#include "core/byte_writer.hpp"
#include "core/quant.hpp"
#include "formats/sluggers/gx_quant.hpp"
#include "formats/sluggers/model_layout.hpp"
#include "formats/sluggers/writer_parts.hpp"

namespace rigport::sluggers {
namespace {

const char* typeName(GxType t) {
  static constexpr const char* kNames[] = {"u8", "s8", "u16", "s16", "f32"};
  return kNames[static_cast<uint8_t>(t)];
}

template <class V>
Result<uint8_t> quantizeFor(const std::vector<V>& values, GxType type, size_t meshIndex, const char* what) {
  std::vector<float> flat;
  flat.reserve(values.size() * V::length());
  for (const V& v : values)
    for (int c = 0; c < V::length(); ++c) flat.push_back(v[c]);
  const auto q = chooseQuantizeInfo(type, flat);
  if (!q) {
    return invalidModel(fmt::format("meshes[{}]/{}", meshIndex, what),
                        fmt::format("values do not fit GX type {} at any number of fractional bits", typeName(type)));
  }
  return *q;
}

template <class V>
std::vector<uint8_t> encode(const std::vector<V>& values, uint8_t q) {
  std::vector<uint8_t> out;
  out.reserve(values.size() * V::length() * gxComponentSize(q));
  for (const V& v : values)
    for (int c = 0; c < V::length(); ++c) putGxComponent(out, v[c], q);
  return out;
}

void putString(std::vector<uint8_t>& out, const char* s) {
  while (*s) out.push_back(static_cast<uint8_t>(*s++));
  out.push_back(0);
}

// A run of the mesh's indices drawn after one texture bind (or none).
struct DrawRun {
  size_t first = 0, end = 0;
  std::optional<uint32_t> bind;  // §3 display state id 1's setting
};

// `key` of `s` as a whole number up to `most`, whether JSON holds it signed (a rig built in code:
// `extras["texture"] = 0`) or unsigned (one parsed from a file).
std::optional<uint32_t> wholeNumber(const nlohmann::json& s, const char* key, uint32_t most) {
  if (!s.contains(key) || !s[key].is_number_integer()) return std::nullopt;
  const nlohmann::json& v = s[key];
  if (v.is_number_unsigned() ? v.get<uint64_t>() > most : v.get<int64_t>() < 0 || v.get<int64_t>() > int64_t{most}) return std::nullopt;
  return v.get<uint32_t>();
}

// The bind a material read from a block keeps (extras.sluggers.bind), else one made from its
// texture index (extras.sluggers.texture), wrapping and filtering linearly; none for other materials.
std::optional<uint32_t> bindOf(const Material& m) {
  const nlohmann::json& x = m.extras;
  if (!x.is_object() || !x.contains("sluggers") || !x["sluggers"].is_object()) return std::nullopt;
  const nlohmann::json& s = x["sluggers"];
  if (auto bind = wholeNumber(s, "bind", 0xFFFFFFFFu)) return *bind & ~(7u << 13);  // layer 0
  if (auto texture = wholeNumber(s, "texture", kBindIndexMask)) {
    return *texture | (1u << 16) | (1u << 20) | (1u << 24) | (1u << 28);  // repeat S and T, linear
  }
  return std::nullopt;
}

// The mesh's parts as runs, each after its material's bind, when any part's material has one;
// else one run of every index without a bind (what blocks without textures always were).
std::vector<DrawRun> drawRuns(const Mesh& mesh, std::span<const Material> materials) {
  std::vector<DrawRun> runs;
  bool anyBind = false;
  for (const MeshPart& p : mesh.parts) {
    const std::optional<uint32_t> bind = p.material < materials.size() ? bindOf(materials[p.material]) : std::nullopt;
    anyBind = anyBind || bind.has_value();
    runs.push_back(DrawRun{p.firstIndex, size_t{p.firstIndex} + p.indexCount, bind});
  }
  if (!anyBind) return {DrawRun{0, mesh.indices.size(), std::nullopt}};
  return runs;
}

}  // namespace

Result<uint8_t> chooseSkinShift(const Mesh& mesh, size_t meshIndex) {
  std::vector<float> flat;
  for (const glm::vec3& p : mesh.positions) flat.insert(flat.end(), {p.x, p.y, p.z});
  for (const glm::vec3& n : mesh.normals) flat.insert(flat.end(), {n.x, n.y, n.z});
  const auto q = chooseQuantizeInfo(GxType::S16, flat);
  // [CP] SKNIt asserts 0 < shift: positions must fit s16 with at least one fractional bit.
  if (!q || (*q & 0xF) == 0) {
    return invalidModel(fmt::format("meshes[{}]/positions", meshIndex), "skinned positions exceed ±16383, the s16 range with a shift of 1");
  }
  return static_cast<uint8_t>(*q & 0xF);
}

std::vector<uint8_t> skinnedArray(const Mesh& mesh, uint8_t shift) {
  std::vector<uint8_t> out;
  out.reserve(mesh.positions.size() * kSkinVertexBytes);
  const uint8_t q = static_cast<uint8_t>((static_cast<uint8_t>(GxType::S16) << 4) | shift);
  for (size_t v = 0; v < mesh.positions.size(); ++v) {
    const glm::vec3 n = v < mesh.normals.size() ? mesh.normals[v] : glm::vec3(0.0f);
    for (float c : {mesh.positions[v].x, mesh.positions[v].y, mesh.positions[v].z, n.x, n.y, n.z}) putGxComponent(out, c, q);
  }
  return out;
}

Result<std::vector<uint8_t>> writeMeshBlob(const Mesh& mesh, std::span<const Material> materials, size_t meshIndex, bool skinned,
                                           uint8_t skinShift, const ModelWriteOptions& options) {
  const size_t nv = mesh.positions.size();
  if (nv > 0xFFFF) {
    return invalidModel(fmt::format("meshes[{}]", meshIndex), fmt::format("{} vertices; a GPL array holds at most 65535", nv));
  }
  const bool normals = !mesh.normals.empty();
  const bool uvs = !mesh.uvs.empty();

  std::vector<uint8_t> positionData, normalData, uvData;
  uint8_t positionQ = 0, normalQ = 0, uvQ = 0;
  if (skinned) {
    positionQ = normalQ = static_cast<uint8_t>((static_cast<uint8_t>(GxType::S16) << 4) | skinShift);
    positionData = skinnedArray(mesh, skinShift);
  } else {
    RP_ASSIGN(positionQ, quantizeFor(mesh.positions, options.positions, meshIndex, "positions"));
    positionData = encode(mesh.positions, positionQ);
    if (normals) {
      RP_ASSIGN(normalQ, quantizeFor(mesh.normals, options.normals, meshIndex, "normals"));
      normalData = encode(mesh.normals, normalQ);
    }
  }
  if (uvs) {
    RP_ASSIGN(uvQ, quantizeFor(mesh.uvs, options.uvs, meshIndex, "uvs"));
    uvData = encode(mesh.uvs, uvQ);
  }

  // §3 primitive lists: triangles, winding reversed for GX, 16-bit indices, ≤ 65535 vertices a command;
  // one list per texture-bound part, after its bind state, else one for the whole mesh.
  const size_t tuple = 2 * (1 + (normals ? 1 : 0) + (uvs ? 1 : 0));
  auto encodeList = [&](size_t begin, size_t end) {
    std::vector<uint8_t> list;
    list.reserve((end - begin) * tuple + 32);
    constexpr size_t kPerCommand = 65535;
    for (size_t first = begin; first < end; first += kPerCommand) {
      const size_t n = std::min(kPerCommand, end - first);
      list.push_back(kTriangles);
      list.push_back(static_cast<uint8_t>(n >> 8));
      list.push_back(static_cast<uint8_t>(n));
      for (size_t k = first; k < first + n; ++k) {
        static constexpr size_t kReverse[3] = {0, 2, 1};
        const uint32_t i = mesh.indices[k - k % 3 + kReverse[k % 3]];
        for (size_t a = 0; a < tuple / 2; ++a) {
          list.push_back(static_cast<uint8_t>(i >> 8));
          list.push_back(static_cast<uint8_t>(i));
        }
      }
    }
    list.push_back(0);
    while (list.size() % kSectionAlignment != 0) list.push_back(0);
    return list;
  };
  std::vector<DrawRun> runs = drawRuns(mesh, materials);
  std::vector<std::vector<uint8_t>> lists;
  size_t numStates = 0, listBytes = 0;
  for (const DrawRun& run : runs) {
    lists.push_back(encodeList(run.first, run.end));
    listBytes += lists.back().size();
    numStates += run.bind ? 2 : 1;
  }
  const uint32_t vcd = (kVcdIndex16 << (2 * kVcdPos)) | (normals ? kVcdIndex16 << (2 * kVcdNrm) : 0) |
                       (uvs ? kVcdIndex16 << (2 * kVcdTex0) : 0);

  // Offsets, all relative to the layout at 0.
  const size_t positionHeader = kLayoutSize;
  const size_t normalHeader = positionHeader + kAttributeHeaderSize;
  const size_t texHeader = normalHeader + (normals ? kNormalHeaderSize : 0);
  const size_t displayHeader = texHeader + (uvs ? kTexcoordHeaderSize : 0);
  const size_t state = displayHeader + kDisplayHeaderSize;
  const size_t paletteName = state + numStates * kDisplayStateSize;
  auto align = [](size_t v) { return (v + kSectionAlignment - 1) / kSectionAlignment * kSectionAlignment; };
  const size_t positionArray = align(paletteName + (uvs ? 12 : 0));
  const size_t normalArray = skinned ? positionArray + 6 : align(positionArray + positionData.size());
  const size_t uvArray = align((skinned || !normals ? positionArray + positionData.size() : normalArray + normalData.size()));
  const size_t listAt = align(uvArray + uvData.size());

  ByteWriter w(Endian::Big);
  w.reserve(listAt + listBytes);
  w.u32(static_cast<uint32_t>(positionHeader));
  w.u32(0);  // colours: none
  w.u32(uvs ? static_cast<uint32_t>(texHeader) : 0);
  w.u32(normals ? static_cast<uint32_t>(normalHeader) : 0);
  w.u32(static_cast<uint32_t>(displayHeader));
  w.u8(uvs ? 1 : 0);
  w.zeros(3);
  w.u32(static_cast<uint32_t>(positionArray));
  w.u16(static_cast<uint16_t>(nv));
  w.u8(positionQ);
  w.u8(skinned ? kSkinnedCompCount : 3);
  if (normals) {
    w.u32(static_cast<uint32_t>(normalArray));
    w.u16(static_cast<uint16_t>(nv));
    w.u8(normalQ);
    w.u8(skinned ? kSkinnedCompCount : 3);
    w.f32(0.0f);  // ambientPercentage, 0.0 in every vanilla header
  }
  if (uvs) {
    w.u32(static_cast<uint32_t>(uvArray));
    w.u16(static_cast<uint16_t>(nv));
    w.u8(uvQ);
    w.u8(2);
    w.u32(static_cast<uint32_t>(paletteName));  // §3: the palette name must be set
    w.u32(0);
  }
  w.u32(0);  // primitiveBank, unused
  w.u32(static_cast<uint32_t>(state));
  w.u16(static_cast<uint16_t>(numStates));
  w.u16(0);
  size_t at = listAt;
  for (size_t r = 0; r < runs.size(); ++r) {
    if (runs[r].bind) {
      w.u8(kStateTexture);
      w.zeros(3);
      w.u32(*runs[r].bind);
      w.u32(0);
      w.u32(0);
    }
    w.u8(kStateVcd);
    w.zeros(3);
    w.u32(vcd);
    w.u32(static_cast<uint32_t>(at));
    w.u32(static_cast<uint32_t>(lists[r].size()));
    at += lists[r].size();
  }
  std::vector<uint8_t> out = w.take();
  if (uvs) putString(out, "rigport.tpl");
  auto place = [&](size_t at, const std::vector<uint8_t>& data) {
    out.resize(at, 0);
    out.insert(out.end(), data.begin(), data.end());
  };
  place(positionArray, positionData);
  if (!skinned && normals) place(normalArray, normalData);
  if (uvs) place(uvArray, uvData);
  out.resize(listAt, 0);
  for (const std::vector<uint8_t>& list : lists) out.insert(out.end(), list.begin(), list.end());
  return out;
}

}  // namespace rigport::sluggers
