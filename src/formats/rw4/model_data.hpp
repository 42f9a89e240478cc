// RenderModelData 0x00EB0001 (pegasus::tRModelData, rw4_arena.md §4.1): the walkthrough's
// "carrier": bone names, inverse bind matrices and the mesh table. No parents are stored.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "core/error.hpp"
#include "core/rig.hpp"
#include "formats/rw4/arena.hpp"

namespace rigport::rw4 {

// A bone name's bytes in the pool (§4.1), for `--base` to write a new name into: from `at` (from
// the object's start), `room` bytes, its NUL included — its own bytes and the NULs after them, up to
// the next name or array the object points at, or its end. Room 0: the name was not read from the
// pool (replaced), or another bone's name shares its bytes.
struct NameSlot {
  uint32_t at = 0;
  uint32_t room = 0;
};

struct ModelData {
  uint32_t index = 0;                      // dictionary row
  std::vector<std::string> boneNames;      // global bone order, used by every palette
  std::vector<NameSlot> nameSlots;         // by bone
  std::vector<glm::mat4> inverseBind;      // per bone, as stored (glTF column-major order, §4.1)
  uint32_t inverseBindOffset = 0;          // m_pIBPMatrices, from the object's start
  std::vector<uint32_t> meshes;            // dictionary rows of the mesh table's meshes
  uint16_t numIslands = 0;
};

// The seed's hard acceptance rules (walkthrough §2) are errors naming the field: the IBM array and
// the bone name table inside the object, the name pool inside it, the first name a printable,
// NUL-terminated ASCII string. A later name that breaks them is replaced with a warning.
Result<ModelData> readModelData(const Arena& arena, ByteReader obj, uint32_t index, Provenance& prov);

}  // namespace rigport::rw4
