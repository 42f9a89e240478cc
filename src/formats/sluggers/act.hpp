// The ACT (actor / bone) section, sluggers.md §4: the bone table, its tree links, bind SRTs and
// the user data rigport understands.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/rig.hpp"
#include "formats/sluggers/model_layout.hpp"

namespace rigport::sluggers {

struct ActData {
  uint16_t actorID = 0;
  uint16_t skinFileID = kNoGeo;
  std::string geoName;
  std::vector<ActBone> bones;        // table order
  // Table indices in the order the runtime fills boneArray: depth-first pre-order from
  // DSTree.Root along firstChild / next ([CP] InitBone). Empty when the links are not a tree.
  std::vector<uint32_t> depthFirst;
  std::vector<std::string> names;    // rigport's names descriptor, when present
  std::vector<uint16_t> trackIds;    // user-data kind 3, when present
};

Result<ActData> readAct(ByteReader& act, Provenance& provenance);

// A GX matrix without shear as T·R·S (§4: local = T·R·S); a mirroring matrix negates x's scale.
void decomposeTrs(const glm::mat4& m, glm::vec3& translation, glm::quat& rotation, glm::vec3& scale);

}  // namespace rigport::sluggers
