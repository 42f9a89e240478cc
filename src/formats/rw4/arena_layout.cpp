#include "formats/rw4/arena_layout.hpp"

#include <fmt/format.h>

namespace rigport::rw4 {

// §2.5 (Skate RW Object Type List.txt, sK8 ERwObjectType.cs).
std::string typeName(uint32_t typeId) {
  if (isBaseResource(typeId)) return fmt::format("BaseResource {}", typeId - kBaseResourceFirst);
  switch (typeId) {
    case 0x00010001: return "Arena";
    case 0x00010003: return "Subreference";
    case 0x00010010: return "ArenaLocalAtomTable";
    case 0x00020003: return "Raster";
    case 0x00020004: return "VDES";
    case 0x00020005: return "VBUF";
    case 0x00020007: return "IBUF";
    case 0x00020009: return "Mesh";
    case 0x0002000B: return "CompiledState";
    case 0x0002001A: return "MeshCompiledStateLink";
    case 0x000200AF: return "BlendShapeBuffer";
    case kMeshHelper: return "MeshHelper";
    case 0x000200E5: return "DrawIndexedParameters";
    case 0x000200E8: return "Texture";
    case kVertexDescriptor: return "VertexDescriptor";
    case kVertexBuffer: return "VertexBuffer";
    case kIndexBuffer: return "IndexBuffer";
    case 0x00040005: return "JointSkeleton";
    case kKeyframeAnim: return "KeyframeAnim";
    case kSkeleton: return "Skeleton";
    case kAnimationSkin: return "AnimationSkin";
    case 0x00070004: return "Interpolator";
    case 0x00070008: return "Blender";
    case 0x0007000A: return "Remapper";
    case 0x0007000B: return "SkeletonsInK";
    case 0x0007000C: return "SkinsInK";
    case 0x0007000F: return "SkinMatrixBuffer";
    case kRenderMeshData: return "RenderMeshData";
    case kRenderModelData: return "RenderModelData";
    case 0x00EB0005: return "RenderMaterialData";
    case kVersionData: return "VersionData";
    case kTableOfContents: return "TableOfContents";
    case 0x00EB000D: return "InstanceData";
    case 0x00EB000E: return "RenderBlendShapeData";
    case kRenderOptiMeshData: return "RenderOptiMeshData";
    case 0x00EC0010: return "ArenaDictionary";
    case 0x00FF0000: return "MorphHandle";
    case 0x00FF0001: return "Animations";
    case 0x00FF0002: return "BlendShape";
    default: return fmt::format("0x{:08X}", typeId);
  }
}

const char* vertexTypeName(uint8_t type) {
  switch (type) {
    case kS1: return "S1";
    case kF: return "F";
    case kSF: return "SF";
    case kUB: return "UB";
    case kS32K: return "S32K";
    case kCMP: return "CMP";
    case kUB256: return "UB256";
    default: return "?";
  }
}

}  // namespace rigport::rw4
