// In-memory form of the BattleForge DRS pieces rigport reads and writes, between the bytes and the
// Rig. Each constant and struct names the section of the format note it implements
// (shared/formats/battleforge_drs.md; where the note and seed 003 disagree, the note wins).
// Everything is little-endian.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

namespace rigport::battleforge {

// §2 header (20 bytes): magic, number_of_models, node_information_offset, node_hierarchy_offset,
// node_count (including the root).
constexpr int32_t kDrsMagic = -981667554;  // 0xC57CF11E
constexpr size_t kHeaderSize = 20;
// §2 NodeInformation record: magic, identifier, offset, size, 16-byte spacer. Record 0 is the root's:
// 16 zero bytes, -1, 1, node_count - 1, 0.
constexpr size_t kNodeInformationSize = 32;

// §2 class magics as NodeInformation.magic (decimal from the add-on; its hex values are wrong).
enum ClassMagic : int32_t {
  kCSkSkeleton = -2110567991,   // 0x823349C9
  kCSkSkinInfo = -761174227,    // 0xD2A1672D
  kCGeoMesh = 100449016,        // 0x05FCBAF8
  kCDspMeshFile = -1900395636,  // 0x8EBA438C
  kCDspJointMap = -1340635850,  // 0xB0178536
};
// The class name the hierarchy gives a magic ("" for one rigport does not model: skipped and listed).
const char* className(int32_t magic);

// §2: one payload found through the NodeInformation table.
struct DrsBlock {
  int32_t magic = 0;
  int32_t identifier = 0;
  uint32_t offset = 0;  // absolute
  uint32_t size = 0;
  std::string name;     // from the hierarchy when it links to this record, else className()
};

// §3 CSkSkeleton: leading constant and the only version the add-on reads.
constexpr int32_t kSkeletonMagic = 1558308612;  // 0x5CE1E704
constexpr int32_t kSkeletonVersion = 3;
constexpr size_t kBoneMatrixSize = 64;  // 4 × BoneVertex{f32 x, y, z; i32 parent}
constexpr size_t kMaxBoneName = 63;     // §3 / seed 003 validation: names of at most 63 characters

// §3 BoneVertex. parent: [0] the parent's identifier (-1 for a root), [1] the bone's index in the
// version-sorted Bone list (not its identifier, as the add-on's docs say), [2] and [3] unknown (0).
struct BoneVertex {
  glm::vec3 position{0.0f};
  int32_t parent = 0;
};
// §3/§4 BoneMatrix, indexed by Bone.identifier: v0..v2 are the rows of the bone's model-space rest
// rotation R and v3 = -Rᵀ·t, i.e. the four columns of the inverse bind matrix.
using BoneMatrix = std::array<BoneVertex, 4>;

// §3 Bone, as listed (sorted by `version`, the id .ska files use).
struct DrsBone {
  uint32_t version = 0;
  int32_t identifier = 0;
  std::string name;
  std::vector<int32_t> children;  // identifiers
};

struct CSkSkeleton {
  std::vector<BoneMatrix> matrices;  // by identifier
  std::vector<DrsBone> bones;        // by version
  std::array<float, 16> superParent{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};  // "usually identity"
  uint64_t fileOffset = 0;  // of the payload, for errors found after reading
};

// §5 CSkSkinInfo: per CGeoMesh vertex, 4 weights then 4 global bone identifiers (32 bytes).
constexpr int32_t kSkinInfoVersion = 1;
struct SkinInfoVertex {
  std::array<float, 4> weights{};
  std::array<int32_t, 4> bones{};
};
struct CSkSkinInfo {
  int32_t version = kSkinInfoVersion;
  std::vector<SkinInfoVertex> vertices;
};

// §6 CGeoMesh: magic 1, u16 triangle indices, float4 positions (w = 1).
constexpr int32_t kGeoMeshMagic = 1;
struct CGeoMesh {
  std::vector<uint16_t> indices;
  std::vector<glm::vec3> positions;
};

// §8 CDspJointMap: one group per BattleforgeMesh, joints[local] = global bone identifier.
constexpr int32_t kJointMapVersion = 1;
struct CDspJointMap {
  std::vector<std::vector<int16_t>> groups;
};

// §7 CDspMeshFile leading constant and vertex stream revisions.
constexpr int32_t kMeshFileMagic = 1314189598;  // 0x4E54F11E
enum StreamRevision : int32_t {
  kStreamPosNormalUv = 133121,    // 0x20801: f32 position[3], normal[3], uv[2] (32 bytes)
  kStreamTangents = 12288,        // 0x3000: f32 tangent[3], bitangent[3] (24 bytes)
  kStreamTangentsOld = 2049,      // 0x801: same layout
  kStreamWeights = 12,            // 0xC: u8 weight[4] (0..255), u8 local_joint[4] (8 bytes)
  kStreamPosUvPacked = 163841,    // 0x28001: f32 position[3], uv[2], 4 bytes (24 bytes; no normal)
};
// §7 material_parameters (0xFADED00N) selects the blocks after the BattleforgeMesh.
constexpr int32_t kMaterialFlow = -86061050;       // 0xFADED006
constexpr int32_t kMaterialNoFlowA = -86061051;    // 0xFADED005
constexpr int32_t kMaterialNoFlowB = -86061052;    // 0xFADED004
constexpr int32_t kMaterialLodString = -86061053;  // 0xFADED003
constexpr int32_t kMaterialLod = -86061054;        // 0xFADED002
constexpr int32_t kMaterialBasic = -86061055;      // 0xFADED001
// §7 Textures ids: which map of the material a texture name is.
constexpr int32_t kTextureColour = 1684432499;     // "_col"
constexpr int32_t kTextureNormal = 1852992883;     // "_nor"
constexpr int32_t kTextureParameter = 1936745324;  // "_par"
constexpr int32_t kTextureRefraction = 1919116143; // "_ref"
constexpr int32_t kTextureFlu = 1668510770;        // the flu map

// §7 one BattleforgeMesh (a submesh with one material), reduced to what a Rig needs.
struct BattleforgeMesh {
  std::vector<glm::vec3> positions;
  std::vector<glm::vec3> normals;
  std::vector<glm::vec2> uvs;
  std::vector<std::array<uint16_t, 3>> faces;
  std::vector<std::array<uint8_t, 8>> weights;  // rev 12: weight[4], local_joint[4]; empty if absent
  int16_t materialId = 0;
  int32_t materialParameters = kMaterialBasic;
  std::vector<std::pair<int32_t, std::string>> textures;  // (id, file name)
};
struct CDspMeshFile {
  std::vector<BattleforgeMesh> meshes;
};

// §9 SKA.
constexpr int32_t kSkaMagic = -1491828473;  // 0xA7148107
constexpr size_t kSkaHeaderSize = 16;       // tick (start index), interval (key count), type, bone_id
constexpr size_t kSkaKeySize = 32;          // f32 x, y, z, w, tan_x, tan_y, tan_z, tan_w
enum SkaChannel : uint32_t { kSkaTranslation = 0, kSkaRotation = 1 };

}  // namespace rigport::battleforge
