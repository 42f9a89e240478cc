// Skate's RenderMaterialData 0x00EB0005 (pegasus::tRMaterialData): the layout docs/rw4_materials.md
// establishes from the IDA export, PsgBuilder and the public model/texture pair. Big-endian on PS3;
// every pointer is an offset from the object's start.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rigport::rw4 {

constexpr uint32_t kRenderMaterialData = 0x00EB0005;  // rw4_arena.md §2.5

namespace material {
// rw4_materials.md §1: {m_uiNumMaterials, m_uiNumChannels, m_pMaterials, m_pChannels, m_StringList}.
constexpr size_t kNumMaterials = 0x00;
constexpr size_t kNumChannels = 0x04;
constexpr size_t kMaterials = 0x08;
constexpr size_t kChannels = 0x0C;
constexpr size_t kStringList = 0x10;
constexpr size_t kHeaderSize = 0x14;
// §2 tRMaterial: {m_uiNumChannels, m_uiFlags, m_pChannels}.
constexpr size_t kMaterialSize = 0x0C;
// §3 tChannel: m_ShaderInput, u16 m_uiFlags, u16 m_uiImageChannel, m_uiPad[2], then a union of
// {u64 m_uiGuid, m_StreamName, m_pStream} and float m_ShaderConstants[4].
constexpr size_t kChannelSize = 0x20;
constexpr size_t kChannelUnion = 0x10;
// §2 tFlags: the union holds four floats, not a GUID and stream name.
constexpr uint16_t kScalarConstant = 0x2;
// §3/§5: the shader inputs rigport binds (REAL and PsgBuilder's channel names).
constexpr const char* kDiffuse = "diffuse";
constexpr const char* kNormal = "normal";
constexpr const char* kName = "Name";  // its stream name names the material
// §3: the pad words every REAL channel and PsgBuilder write.
constexpr uint32_t kPad0 = 0xDEADBEEF;
constexpr uint32_t kPad1 = 0xDEADC0DE;
}  // namespace material

}  // namespace rigport::rw4
