// RenderModelData (rw4_arena.md §4.1; walkthrough §2–3 for the acceptance rules).
#include "formats/rw4/model_data.hpp"

#include <algorithm>
#include <span>

#include <fmt/format.h>

namespace rigport::rw4 {
namespace {

bool printable(const std::string& s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7F) return false;
  return true;
}

// `what` ends inside the object, else the acceptance error naming `field` at `at`.
Status inObject(const ByteReader& obj, size_t at, uint64_t offset, uint64_t bytes, const char* field, const std::string& what) {
  if (offset <= obj.size() && bytes <= obj.size() - offset) return Ok{};
  return obj.errorAt(at, ErrorCode::BadValue,
                     fmt::format("{} at +0x{:X} ({} bytes) runs past the {}-byte RenderModelData", what, offset, bytes, obj.size()),
                     field);
}

Result<std::string> nameAt(const ByteReader& obj, uint32_t offset, size_t bone) {
  if (offset >= obj.size()) {
    return obj.error(ErrorCode::BadValue, fmt::format("name offset +0x{:X} outside the object", offset), Field("boneName", static_cast<int64_t>(bone)));
  }
  RP_ASSIGN(ByteReader s, obj.window(offset, obj.size() - offset, Field("boneName", static_cast<int64_t>(bone))));
  return s.cString("name");
}

// Each name's slot (NameSlot): `read` tells the names taken from the pool, `starts` the offsets the
// object's header points at (the name table's entries are added here).
std::vector<NameSlot> nameSlots(std::span<const uint8_t> obj, const std::vector<uint32_t>& offsets, const std::vector<bool>& read,
                                std::vector<uint32_t> starts) {
  // Each read name's NUL: a read name ends inside the object.
  std::vector<uint32_t> nul(offsets.size());
  for (size_t b = 0; b < offsets.size(); ++b) {
    if (!read[b]) continue;
    nul[b] = offsets[b];
    while (obj[nul[b]] != 0) ++nul[b];
  }
  starts.insert(starts.end(), offsets.begin(), offsets.end());
  starts.push_back(static_cast<uint32_t>(obj.size()));
  std::sort(starts.begin(), starts.end());
  std::vector<NameSlot> slots(offsets.size());
  for (size_t b = 0; b < offsets.size(); ++b) {
    if (!read[b]) continue;
    bool shared = false;
    for (size_t o = 0; o < offsets.size() && !shared; ++o) {
      shared = o != b && (read[o] ? offsets[o] <= nul[b] && offsets[b] <= nul[o] : offsets[o] >= offsets[b] && offsets[o] <= nul[b]);
    }
    if (shared) continue;
    const uint32_t bound = *std::upper_bound(starts.begin(), starts.end(), offsets[b]);
    uint32_t end = nul[b] + 1;
    while (end < bound && obj[end] == 0) ++end;
    slots[b] = NameSlot{offsets[b], end - offsets[b]};
  }
  return slots;
}

}  // namespace

Result<ModelData> readModelData(const Arena& arena, ByteReader obj, uint32_t index, Provenance& prov) {
  ModelData md;
  md.index = index;
  RP_CHECK(obj.seek(model::kIBPMatrices, "m_pIBPMatrices"));
  RP_ASSIGN(const uint32_t offIBM, obj.u32("m_pIBPMatrices"));
  RP_ASSIGN(const uint32_t offMeshTable, obj.u32("m_pMeshTable"));
  RP_ASSIGN(const uint32_t offNameTable, obj.u32("m_pBoneNameTable"));
  RP_ASSIGN(const uint32_t offNames, obj.u32("m_pBoneNameList"));
  RP_CHECK(obj.skip(2, "m_iNumTotalBones"));
  RP_ASSIGN(const uint16_t numMeshes, obj.u16("m_iNumMeshes"));
  RP_ASSIGN(const uint16_t numBones, obj.u16("m_iNumBones"));
  RP_ASSIGN(md.numIslands, obj.u16("m_iNumIslands"));
  if (numBones == 0) return obj.errorAt(model::kNumBones, ErrorCode::BadValue, "no bones", "m_iNumBones");

  // Acceptance rules (walkthrough §2): every array inside the object, the first name printable.
  RP_CHECK(inObject(obj, model::kIBPMatrices, offIBM, uint64_t{numBones} * model::kMatrixSize, "m_pIBPMatrices",
                    fmt::format("{} inverse bind matrices", numBones)));
  RP_CHECK(inObject(obj, model::kBoneNameTable, offNameTable, uint64_t{numBones} * 4, "m_pBoneNameTable",
                    fmt::format("the name table of {} bones", numBones)));
  if (offNames >= obj.size()) {
    return obj.errorAt(model::kBoneNameList, ErrorCode::BadValue,
                       fmt::format("name pool at +0x{:X} lies outside the {}-byte RenderModelData", offNames, obj.size()),
                       "m_pBoneNameList");
  }
  RP_CHECK(obj.charge(uint64_t{numBones} * (sizeof(glm::mat4) + 32), "m_iNumBones"));

  RP_ASSIGN(ByteReader table, obj.window(offNameTable, size_t{numBones} * 4, "m_pBoneNameTable"));
  RP_ASSIGN(const std::vector<uint32_t> nameOffsets, table.array<uint32_t>(numBones, "nameOffset"));
  auto first = nameAt(obj, nameOffsets[0], 0);
  if (!first || !printable(*first)) {
    return table.errorAt(0, ErrorCode::BadValue,
                         first ? fmt::format("the first bone name at +0x{:X} is not printable ASCII", nameOffsets[0])
                               : fmt::format("the first bone name at +0x{:X} is not a NUL-terminated string inside the object",
                                             nameOffsets[0]),
                         Field("nameOffset", 0));
  }
  md.boneNames.reserve(numBones);
  md.boneNames.push_back(std::move(*first));
  std::vector<bool> read(numBones, true);
  size_t badNames = 0;
  for (size_t b = 1; b < numBones; ++b) {
    auto name = nameAt(obj, nameOffsets[b], b);
    if (name && printable(*name)) {
      md.boneNames.push_back(std::move(*name));
      continue;
    }
    read[b] = false;
    if (badNames++ == 0) {
      prov.warn("rw4-bone-name", fmt::format("RenderModelData (row {}) bone {}: the name at +0x{:X} is not a printable, "
                                             "NUL-terminated string inside the object; named bone_{}",
                                             index, b, nameOffsets[b], b));
    }
    md.boneNames.push_back(fmt::format("bone_{}", b));
  }
  if (badNames > 1) prov.warn("rw4-bone-name", fmt::format("{} more bone names were replaced the same way", badNames - 1));
  std::vector<uint32_t> starts{offIBM, offMeshTable, offNameTable, offNames};
  if (obj.size() >= model::kHeaderSize) {  // the island arrays' pointers (not read otherwise)
    RP_CHECK(obj.seek(model::kIslandAABBs, "m_pIslandAABBs"));
    RP_ASSIGN(const std::vector<uint32_t> islands, obj.array<uint32_t>(2, "m_pIslandAABBs"));
    starts.insert(starts.end(), islands.begin(), islands.end());
  }
  md.nameSlots = nameSlots(obj.data(), nameOffsets, read, std::move(starts));

  // §4.1: 16 floats per bone in file order are glTF's column-major order (translation in row 3).
  RP_ASSIGN(ByteReader m, obj.window(offIBM, size_t{numBones} * model::kMatrixSize, "m_pIBPMatrices"));
  RP_ASSIGN(const std::vector<float> floats, m.array<float>(size_t{numBones} * 16, "matrix"));
  md.inverseBind.resize(numBones);
  md.inverseBindOffset = offIBM;
  for (size_t b = 0; b < numBones; ++b) {
    for (int k = 0; k < 16; ++k) md.inverseBind[b][k / 4][k % 4] = floats[b * 16 + static_cast<size_t>(k)];
  }

  // §4.1 mesh table {mesh ref, material ref}; a table outside the object loses the meshes, not the skeleton.
  if (numMeshes > 0) {
    if (offMeshTable > obj.size() || uint64_t{numMeshes} * model::kMeshTableEntry > obj.size() - offMeshTable) {
      prov.warn("rw4-mesh-table", fmt::format("RenderModelData (row {}): the mesh table of {} meshes at +0x{:X} runs past "
                                              "the object; no meshes are read",
                                              index, numMeshes, offMeshTable));
      return md;
    }
    RP_ASSIGN(ByteReader t, obj.window(offMeshTable, size_t{numMeshes} * model::kMeshTableEntry, "m_pMeshTable"));
    for (size_t i = 0; i < numMeshes; ++i) {
      const size_t at = t.position();
      RP_ASSIGN(const uint32_t ref, t.u32(Field("meshRef", static_cast<int64_t>(i))));
      RP_CHECK(t.skip(4, "materialRef"));
      auto resolved = resolveRef(arena, t, at, ref, "meshRef");
      if (!resolved || !*resolved || (*resolved)->offset != 0) {
        prov.warn("rw4-mesh-table", fmt::format("RenderModelData (row {}) mesh {}: reference 0x{:08X} names no object; skipped",
                                                index, i, ref));
        continue;
      }
      md.meshes.push_back((*resolved)->object);
    }
  }
  return md;
}

}  // namespace rigport::rw4
