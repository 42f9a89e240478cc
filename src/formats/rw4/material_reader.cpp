// RenderMaterialData → rig materials (docs/rw4_materials.md §1–§5).
#include <fmt/format.h>

#include "formats/rw4/material.hpp"
#include "formats/rw4/material_layout.hpp"

namespace rigport::rw4 {
namespace {

// What one channel's extras take, charged to the budget before it is read (a JSON object of five
// members and their strings).
constexpr uint64_t kChannelExtrasBytes = 512;

struct Header {
  uint32_t numMaterials = 0, numChannels = 0, materials = 0, channels = 0;
};

// A NUL-terminated string of the object at object-relative `at` (§1 m_StringList, §3).
Result<std::string> stringAt(const ByteReader& obj, uint32_t at, Field f) {
  if (at >= obj.size()) return obj.error(ErrorCode::BadValue, fmt::format("offset 0x{:X} outside the {}-byte object", at, obj.size()), f);
  RP_ASSIGN(ByteReader text, obj.window(at, obj.size() - at, f));
  return text.cString(f);
}

// A table of `count` records of `size` bytes at object-relative `at` (stored at `pointerAt`) lies
// inside the object: checked against the bytes left before anything is allocated for it.
Status tableFits(const ByteReader& obj, uint32_t at, uint32_t count, size_t size, size_t pointerAt, const char* pointer, const char* field) {
  if (at > obj.size()) return obj.errorAt(pointerAt, ErrorCode::BadValue, fmt::format("0x{:X}, past the {}-byte object", at, obj.size()), pointer);
  RP_ASSIGN(const ByteReader table, obj.window(at, obj.size() - at, pointer));
  RP_CHECK(table.count(count, size, field));
  return Ok{};
}

// §1: the header, both tables inside the object.
Result<Header> readHeader(ByteReader obj) {
  Header h;
  RP_ASSIGN(h.numMaterials, obj.u32("m_uiNumMaterials"));
  RP_ASSIGN(h.numChannels, obj.u32("m_uiNumChannels"));
  RP_ASSIGN(h.materials, obj.u32("m_pMaterials"));
  RP_ASSIGN(h.channels, obj.u32("m_pChannels"));
  RP_CHECK(tableFits(obj, h.materials, h.numMaterials, material::kMaterialSize, material::kMaterials, "m_pMaterials", "m_uiNumMaterials"));
  RP_CHECK(tableFits(obj, h.channels, h.numChannels, material::kChannelSize, material::kChannels, "m_pChannels", "m_uiNumChannels"));
  RP_CHECK(obj.charge(uint64_t{h.numMaterials} * sizeof(Material), "m_uiNumMaterials"));
  return h;
}

// §3: one channel as extras ({input, flags, imageChannel, then guid and stream or constants}).
Result<nlohmann::json> readChannel(const ByteReader& obj, ByteReader c) {
  RP_ASSIGN(const uint32_t input, c.u32("m_ShaderInput"));
  RP_ASSIGN(const uint16_t flags, c.u16("m_uiFlags"));
  RP_ASSIGN(const uint16_t imageChannel, c.u16("m_uiImageChannel"));
  RP_CHECK(c.skip(8, "m_uiPad"));
  RP_ASSIGN(const std::string name, stringAt(obj, input, "m_ShaderInput"));
  nlohmann::json j{{"input", name}, {"flags", flags}, {"imageChannel", imageChannel}};
  if ((flags & material::kScalarConstant) != 0) {
    nlohmann::json constants = nlohmann::json::array();
    for (int k = 0; k < 4; ++k) {
      RP_ASSIGN(const float value, c.f32(Field("m_ShaderConstants", k)));
      constants.push_back(value);
    }
    j["constants"] = std::move(constants);
    return j;
  }
  RP_ASSIGN(const uint64_t guid, c.u64("m_uiGuid"));
  RP_ASSIGN(const uint32_t stream, c.u32("m_StreamName"));
  RP_ASSIGN(j["stream"], stringAt(obj, stream, "m_StreamName"));
  j["guid"] = textureGuidName(guid);
  return j;
}

// §5: the Name channel names the material; diffuse and normal name its textures by GUID.
void applyChannel(const nlohmann::json& channel, Material& m) {
  if (!channel.contains("guid")) return;
  const std::string& input = channel["input"].get_ref<const std::string&>();
  const std::string& guid = channel["guid"].get_ref<const std::string&>();
  if (input == material::kName) {
    if (!channel["stream"].get_ref<const std::string&>().empty()) m.name = channel["stream"].get<std::string>();
    return;
  }
  if (guid == textureGuidName(0)) return;  // no texture (REAL's AttribulatorMaterialName)
  if (input == material::kDiffuse && m.textures.empty()) m.textures.push_back(guid);
  if (input == material::kNormal && m.normalMap.empty()) m.normalMap = guid;
}

// §2: material `index` of the object at `row`; a channel that does not read costs its binding.
Material readMaterial(const ByteReader& obj, uint32_t row, uint32_t index, const Header& h, Provenance& prov) {
  Material m;
  m.name = fmt::format("material_{}_{}", row, index);
  nlohmann::json channels = nlohmann::json::array();
  const auto damaged = [&](const std::string& what, const Error& e) {
    prov.warn("rw4-material", fmt::format("RenderMaterialData (row {}) material {}{}: {}; not bound", row, index, what, e.describe()));
  };
  auto read = [&]() -> Status {
    RP_ASSIGN(ByteReader r, obj.window(h.materials + size_t{index} * material::kMaterialSize, material::kMaterialSize,
                                        Field("material", index)));
    RP_ASSIGN(const uint32_t count, r.u32("m_uiNumChannels"));
    RP_CHECK(r.skip(4, "m_uiFlags"));
    RP_ASSIGN(const uint32_t first, r.u32("m_pChannels"));
    if (first > obj.size()) return r.errorAt(8, ErrorCode::BadValue, fmt::format("0x{:X}, past the {}-byte object", first, obj.size()), "m_pChannels");
    RP_ASSIGN(const ByteReader table, obj.window(first, obj.size() - first, Field("material", index)));
    RP_ASSIGN(const size_t n, table.count(count, material::kChannelSize, "m_uiNumChannels"));
    // Materials may share channels, so the object's size alone does not bound what they all read.
    RP_CHECK(table.charge(uint64_t{n} * kChannelExtrasBytes, "m_uiNumChannels"));
    for (size_t c = 0; c < n; ++c) {
      RP_ASSIGN(const ByteReader bytes, obj.window(first + c * material::kChannelSize, material::kChannelSize, Field("channel", static_cast<int64_t>(c))));
      auto channel = readChannel(obj, bytes);
      if (!channel) {
        damaged(fmt::format(" channel {}", c), channel.error());
        continue;
      }
      applyChannel(*channel, m);
      channels.push_back(std::move(*channel));
    }
    return Ok{};
  };
  if (const Status s = read(); !s) damaged("", s.error());
  m.extras = {{"rw4", {{"object", row}, {"material", index}, {"channels", std::move(channels)}}}};
  return m;
}

}  // namespace

std::string textureGuidName(uint64_t guid) { return fmt::format("0x{:016x}", guid); }

ArenaMaterials readArenaMaterials(const Arena& arena, const ByteReader& root, Provenance& prov) {
  ArenaMaterials out;
  for (uint32_t row = 0; row < arena.dictionary.size(); ++row) {
    if (arena.dictionary[row].typeId != kRenderMaterialData) continue;
    auto obj = objectReader(arena, root, row, "RenderMaterialData");
    auto header = obj ? readHeader(*obj) : Result<Header>(obj.error());
    if (!header) {
      prov.warn("rw4-material", fmt::format("RenderMaterialData (row {}) is not read: {}; its meshes are not bound", row, header.error().describe()));
      continue;
    }
    for (uint32_t i = 0; i < header->numMaterials; ++i) {
      out.byRef.emplace(std::pair{row, static_cast<uint32_t>(header->materials + i * material::kMaterialSize)},
                        static_cast<uint32_t>(out.materials.size()));
      out.materials.push_back(readMaterial(*obj, row, i, *header, prov));
    }
  }
  return out;
}

std::optional<uint32_t> meshMaterial(const Arena& arena, const ByteReader& root, uint32_t row, const ArenaMaterials& materials,
                                     Provenance& prov) {
  auto obj = objectReader(arena, root, row, "RenderOptiMeshData");
  auto value = obj ? obj->window(optimesh::kMaterial, 4, "m_pMaterial") : Result<ByteReader>(obj.error());
  auto word = value ? value->u32("m_pMaterial") : Result<uint32_t>(value.error());
  auto ref = word ? resolveRef(arena, *obj, optimesh::kMaterial, *word, "m_pMaterial") : Result<std::optional<ObjectRef>>(word.error());
  if (!ref) {
    prov.warn("rw4-material", fmt::format("RenderOptiMeshData (row {}) names no material: {}", row, ref.error().describe()));
    return std::nullopt;
  }
  if (!*ref) return std::nullopt;
  const auto found = materials.byRef.find({(*ref)->object, (*ref)->offset});
  if (found == materials.byRef.end()) {
    prov.warn("rw4-material", fmt::format("RenderOptiMeshData (row {}): m_pMaterial names object {} offset 0x{:X}, no material read",
                                          row, (*ref)->object, (*ref)->offset));
    return std::nullopt;
  }
  return found->second;
}

}  // namespace rigport::rw4
