// Mario Super Sluggers (Wii) model block: the byte layout rigport reads and writes. Every constant
// and struct names the section of the format note (shared/formats/sluggers.md) it implements.
// All values are big-endian (note, preamble); every section starts on a 32-byte boundary (§2).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>
#include <glm/gtc/quaternion.hpp>

#include "core/default_init_allocator.hpp"

namespace rigport::sluggers {

// §2 "Model block header": u32 0, then section pointers relative to the block start.
constexpr size_t kBlockHeaderSize = 0x20;
enum BlockHeaderField : size_t {
  kHeaderZero = 0x00,
  kHeaderGpl = 0x04,
  kHeaderAct = 0x08,
  kHeaderTex = 0x0C,
  kHeaderSkn = 0x10,
  kHeaderFacial = 0x18,
};
constexpr size_t kSectionAlignment = 32;  // §2: every section start is 0 mod 32

// §2 "Version magics are Character Pipeline version numbers".
constexpr uint32_t kGplMagic = 0x00B749E0;  // 12012000
constexpr uint32_t kActMagic = 0x007B7960;  // 8092000

// §3 GPL header (0x14) and its 8-byte descriptors {→ DOLayout, → name}, GPL-relative.
constexpr size_t kGplHeaderSize = 0x14;
constexpr size_t kGplDescriptorSize = 8;
// §3 DOLayout: five pointers relative to the layout, u8 texture-channel count, 3 pad bytes.
constexpr size_t kLayoutSize = 0x18;
// §3 attribute headers: {array ptr u32, count u16, quantizeInfo u8, compCount u8} (+ extras).
constexpr size_t kAttributeHeaderSize = 8;
constexpr size_t kTexcoordHeaderSize = 16;  // + paletteName ptr, palette ptr
constexpr size_t kNormalHeaderSize = 12;    // + f32 ambientPercentage
constexpr size_t kDisplayHeaderSize = 12;   // primitiveBank ptr, → state array, u16 count, pad
constexpr size_t kDisplayStateSize = 16;    // u8 id, 3 params, u32 setting, → list, u32 list size
constexpr uint8_t kSkinnedCompCount = 6;    // §3: position then normal per vertex

// §3 "Quantization byte, resolved": high nibble = GXCompType, low nibble = fractional bits.
enum class GxType : uint8_t { U8 = 0, S8 = 1, U16 = 2, S16 = 3, F32 = 4 };
constexpr uint8_t kGxTypeCount = 5;
// §3 colour arrays use the GX colour enum: RGB565, RGB8, RGBX8, RGBA4, RGBA6, RGBA8.
constexpr uint8_t kGxColourTypeCount = 6;

// §3 display state ids and the VCD (id 3): 2 bits per attribute from bit 0, PNMTXIDX, POS, NRM,
// CLR0, CLR1, TEX0..7; 0 none, 1 direct, 2 8-bit index, 3 16-bit index ([CP] TranslateVCD).
constexpr uint8_t kStateTexture = 1;
constexpr uint8_t kStateVcd = 3;
enum VcdSlot : uint8_t { kVcdPnMtx = 0, kVcdPos = 1, kVcdNrm = 2, kVcdClr0 = 3, kVcdClr1 = 4, kVcdTex0 = 5 };
constexpr uint8_t kVcdSlots = 13;
enum VcdType : uint8_t { kVcdNone = 0, kVcdDirect = 1, kVcdIndex8 = 2, kVcdIndex16 = 3 };

// §3 primitive list opcodes (GX: the low 3 bits select the vertex format, masked off).
enum Primitive : uint8_t {
  kQuads = 0x80,
  kTriangles = 0x90,
  kTriangleStrip = 0x98,
  kTriangleFan = 0xA0,
  kLines = 0xA8,
  kLineStrip = 0xB0,
  kPoints = 0xB8,
};
constexpr uint8_t kPrimitiveMask = 0xF8;

// §4 ACT header (0x20), bone record (0x1C, right after the header), Control/SRT (0x34).
constexpr size_t kActHeaderSize = 0x20;
constexpr size_t kBoneRecordSize = 0x1C;
constexpr size_t kControlSize = 0x34;
constexpr uint16_t kNoGeo = 0xFFFF;  // geoFileID / skinFileID "none"
// §4 Control type bits ([MSSB] control.h).
enum ControlBit : uint8_t {
  kCtrlScale = 0x01,
  kCtrlEuler = 0x02,
  kCtrlQuat = 0x04,
  kCtrlTranslation = 0x08,
  kCtrlMatrix = 0x10,
  kCtrlScaleOrientation = 0x20,
};
// §4 ACT user data: a chain of {u32 size incl. this 0xC header, u16 kind, u16 count, u32 data ptr};
// the data follows the descriptor at +0xC ([MSSDAT] act.py).
constexpr size_t kUserDataHeaderSize = 0xC;
constexpr uint16_t kUserDataTrackIds = 3;  // §4: u16[boneCount] bone → ANM track id
// Not a game kind: rigport's writer keeps bone names (the format has none) in a descriptor of this
// kind, `count` NUL-terminated names back to back. Vanilla blocks never carry it.
constexpr uint16_t kUserDataRigportNames = 0x524E;  // "RN"

// §6 SKN header (0x24) and entries. Skin data is s16 with posNrmShift fractional bits, 12 bytes
// (position + normal) per vertex; weights are u8/256.
constexpr size_t kSknHeaderSize = 0x24;
constexpr size_t kSk1Size = 0x40;
constexpr size_t kSk2Size = 0x74;
constexpr size_t kSkAccSize = 0x44;
constexpr size_t kSkinVertexBytes = 12;
constexpr uint32_t kFullWeight = 256;
// §6: every vanilla SK1/SK2 has count >= 3 ([CP] asserts count > 2) and sources of at most 8180
// (SK1) / 4088 (SK2) bytes; the writer keeps to both.
constexpr uint16_t kMinSkRun = 3;
constexpr uint16_t kMaxSk1Run = 8180 / kSkinVertexBytes;
constexpr uint16_t kMaxSk2Run = 4088 / kSkinVertexBytes;

// §5 TEX: u16 textureCount, u16 clutCount, then 0x20-byte descriptors from +4, pointers relative to
// the TEX start. Descriptor fields as [SLUGDOC] texture_section.html and [MSSDAT] tpl.py read them:
// → image, → palette (0: none), u16 height, u16 width, then at +0x17 the GXTexFmt, +0x18 u16 palette
// entries (16 bits each), +0x1A u8 GXTlutFmt. Level 0 only: [MSSDAT] sizes the payload from it, and
// where the mip count sits is not confirmed (texture_section.html guesses +0x16).
constexpr size_t kTexHeaderSize = 4;
constexpr size_t kTexDescriptorSize = 0x20;
enum TexDescriptorField : size_t {
  kTexImage = 0x00,
  kTexPalette = 0x04,
  kTexHeight = 0x08,
  kTexWidth = 0x0A,
  kTexFormat = 0x17,
  kTexPaletteEntries = 0x18,
  kTexPaletteFormat = 0x1A,
};
// §3 display state id 1 ("texture bind"): index in bits 0-12, layer 13-15, wrapS 16-19, wrapT 20-23,
// minFilter 24-27, magFilter 28-31 ([CP] SetState); GX wrap 0 clamp, 1 repeat, 2 mirror; GX filter
// 0 near, 1 linear, 2-5 the mip modes (near/lin mip near, near/lin mip lin).
constexpr uint32_t kBindIndexMask = 0x1FFF;

// One attribute header (§3) as read.
struct AttributeHeader {
  uint32_t array = 0;  // layout-relative
  uint16_t count = 0;
  uint8_t quantizeInfo = 0;
  uint8_t compCount = 0;
};

// §4 Control (SRT) as read: only the components whose bits are set apply.
struct Control {
  uint8_t type = 0;
  glm::vec3 scale{1.0f};
  glm::quat rotation{1.0f, 0.0f, 0.0f, 0.0f};
  glm::vec3 translation{0.0f};
};

// §4 bone record as read; links are bone-table indices (-1: none).
struct ActBone {
  int32_t parent = -1, firstChild = -1, next = -1;
  uint16_t geoFileID = kNoGeo;
  uint16_t boneID = 0;
  uint8_t inheritanceFlag = 1;
  glm::mat4 local{1.0f};
  Control control;
  size_t controlAt = 0;  // the Control's ACT offset; 0: none (identity, §4)
};

// §6 one rebuilt (vertex, bone index, weight) record and where its bind data lies. Trivial (no
// member initialisers), so sizing SkinRecords leaves the records for the reader to write: zeroing
// them first was a pass over 1.8 MB on the benchmark's block.
struct SkinRecord {
  uint32_t vertex;   // slot in the skinned position array (may be >= its count, §6)
  uint16_t boneIndex;
  uint16_t weight;   // in 1/256
  // Section offset of its 12-byte bind-pose model-space source (§4 "World and bind matrices"),
  // decoded when used (SknData::position, ::normal): an SK2 vertex's two records share one.
  uint32_t source;
};
using SkinRecords = std::vector<SkinRecord, DefaultInitAllocator<SkinRecord>>;

}  // namespace rigport::sluggers
