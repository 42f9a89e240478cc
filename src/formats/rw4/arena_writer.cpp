// Rig → RW4 arena (rw4_arena.md §2 container, §3 render objects, §4 Pegasus objects, §5 Skeleton).
// Main memory: header, sections, objects (16-aligned), dictionary, subreference records; then the
// platform's graphics base resource with the vertex and index bytes (0x80-aligned buffers).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "core/axes.hpp"
#include "core/byte_writer.hpp"
#include "core/hash.hpp"
#include "core/track_space.hpp"
#include "formats/rw4/axes.hpp"
#include "formats/rw4/rw4.hpp"
#include "formats/rw4/keyframe_anim.hpp"
#include "formats/rw4/material.hpp"
#include "formats/rw4/material_layout.hpp"
#include "formats/rw4/rw_skeleton.hpp"
#include "formats/rw4/spore_mesh.hpp"
#include "formats/rw4/spore_mesh_layout.hpp"
#include "formats/rw4/vertex_format.hpp"

namespace rigport::rw4 {
namespace {

constexpr size_t kObjectAlign = 0x10;
constexpr size_t kBufferAlign = 0x80;
constexpr uint32_t kRowsPerMesh = 7;       // VD, VB, IB, MeshHelper, OptiMesh, vertex bytes, index bytes
constexpr uint32_t kRowsPerSporeMesh = 6;  // VertexDescription, VertexBuffer, IndexBuffer, Mesh, vertex bytes, index bytes
constexpr float kInt16PositionLimit = 32767.0f / 256.0f;

struct ResourceSize {
  uint32_t size = 0;
  uint32_t align = 1;
};

struct Row {
  uint32_t typeId = 0;
  uint32_t ptr = 0;
  uint32_t size = 0;
  uint32_t align = kObjectAlign;
};

// One mesh, laid out for the file.
struct MeshPlan {
  std::vector<uint16_t> palette;                     // slot -> global bone
  std::vector<std::array<uint16_t, kMaxInfluences>> slots;
  std::vector<std::array<float, kMaxInfluences>> weights;
  std::vector<std::pair<uint32_t, uint32_t>> islands;  // {startIndex, indexCount}
  std::vector<VertexElement> elements;
  size_t stride = 0;
  uint32_t firstIsland = 0;
  glm::vec3 min{0.0f}, max{0.0f};
};

Error usage(std::string message) { return makeError(ErrorCode::Usage, std::move(message)); }

size_t paletteLimit(uint8_t indexType) {
  switch (indexType) {
    case kUB:
    case kUB256: return 256;
    case kSF: return 2048;  // every integer up to 2048 is exact in a half
    default: return 65535;
  }
}

Status checkLayout(const VertexLayout& l) {
  auto allowed = [](uint8_t t, std::initializer_list<uint8_t> set) { return std::find(set.begin(), set.end(), t) != set.end(); };
  if (!allowed(l.position, {kF, kSF, kS1, kS32K})) return usage(fmt::format("positions cannot be written as {}", vertexTypeName(l.position)));
  if (!allowed(l.normal, {kCMP, kF, kSF, kS1})) return usage(fmt::format("normals cannot be written as {}", vertexTypeName(l.normal)));
  if (!allowed(l.uv, {kF, kSF, kS1, kUB})) return usage(fmt::format("UVs cannot be written as {}", vertexTypeName(l.uv)));
  if (!allowed(l.weights, {kUB, kUB256, kS1, kS32K, kSF, kF})) return usage(fmt::format("weights cannot be written as {}", vertexTypeName(l.weights)));
  if (!allowed(l.indices, {kUB, kUB256, kS1, kS32K, kSF, kF})) return usage(fmt::format("blend indices cannot be written as {}", vertexTypeName(l.indices)));
  return Ok{};
}

// Elements in the order XYZ, NORMAL, TEX0, WEIGHTS, INDICES, each aligned to its component size.
void layoutElements(const Mesh& mesh, const VertexLayout& l, MeshPlan& plan) {
  size_t offset = 0;
  auto add = [&](uint8_t type, uint8_t components, uint8_t usage) {
    VertexElement e;
    e.vertexType = type;
    e.numComponents = components;
    e.usage = usage;
    const size_t align = std::min<size_t>(componentSize(type), 4);
    offset = (offset + align - 1) / align * align;
    e.offset = static_cast<uint8_t>(offset);
    offset += elementBytes(e);
    plan.elements.push_back(e);
  };
  add(l.position, 3, kXYZ);
  if (!mesh.normals.empty()) add(l.normal, l.normal == kCMP ? 1 : 3, kNormal);
  if (!mesh.uvs.empty()) add(l.uv, 2, kTex0);
  add(l.weights, kMaxInfluences, kWeights);
  add(l.indices, kMaxInfluences, kIndices);
  plan.stride = (offset + 3) / 4 * 4;
  for (VertexElement& e : plan.elements) e.stride = static_cast<uint16_t>(plan.stride);
}

Result<MeshPlan> planMesh(const Rig& rig, const Mesh& mesh, size_t meshIndex, const ArenaWriteOptions& o) {
  MeshPlan plan;
  const size_t nv = mesh.vertexCount();
  if (nv > 65535) return usage(fmt::format("mesh {} has {} vertices; 16-bit indices address 65535", meshIndex, nv));
  if (nv == 0) return usage(fmt::format("mesh {} has no vertices", meshIndex));
  if (o.layout.position != kF && o.layout.position != kSF) {
    for (const glm::vec3& p : mesh.positions) {
      if (std::fabs(p.x) > kInt16PositionLimit || std::fabs(p.y) > kInt16PositionLimit || std::fabs(p.z) > kInt16PositionLimit) {
        return usage(fmt::format("mesh {}: a position beyond ±{:.2f} does not fit {} (raw / 256)", meshIndex, kInt16PositionLimit,
                                 vertexTypeName(o.layout.position)));
      }
    }
  }
  // Every arena mesh is skinned; fitToLimits binds a rider first (core/fit.hpp, skinnedMeshesOnly).
  if (!mesh.skinned() && mesh.attachBone >= 0) {
    return usage(fmt::format("mesh {} rides bone {}; an arena skins every mesh (bind it with fitToLimits first)", meshIndex, mesh.attachBone));
  }
  // Influences: the 4 largest per vertex, rescaled to sum 1; an unskinned mesh (at the model root) rides bone 0.
  std::vector<std::array<Influence, kMaxInfluences>> chosen(nv);
  std::vector<size_t> counts(nv, 0);
  std::map<uint32_t, uint16_t> slotOf;
  for (size_t v = 0; v < nv; ++v) {
    std::vector<Influence> inf;
    if (mesh.skinned()) {
      inf.assign(mesh.influences.begin() + mesh.influenceOffsets[v], mesh.influences.begin() + mesh.influenceOffsets[v + 1]);
    }
    std::erase_if(inf, [](const Influence& i) { return !(i.weight > 0.0f); });
    std::stable_sort(inf.begin(), inf.end(), [](const Influence& a, const Influence& b) { return a.weight > b.weight; });
    if (inf.size() > kMaxInfluences) inf.resize(kMaxInfluences);
    if (inf.empty()) inf.push_back(Influence{0, 1.0f});
    float sum = 0.0f;
    for (const Influence& i : inf) sum += i.weight;
    for (size_t k = 0; k < inf.size(); ++k) {
      chosen[v][k] = Influence{inf[k].bone, inf[k].weight / sum};
      slotOf.emplace(inf[k].bone, 0);
    }
    counts[v] = inf.size();
  }
  if (slotOf.size() > paletteLimit(o.layout.indices)) {
    return usage(fmt::format("mesh {} uses {} bones; {} blend indices address {}", meshIndex, slotOf.size(),
                             vertexTypeName(o.layout.indices), paletteLimit(o.layout.indices)));
  }
  for (auto& [bone, slot] : slotOf) {
    if (bone >= rig.skeleton.bones.size()) return usage(fmt::format("mesh {}: an influence names bone {} of {}", meshIndex, bone, rig.skeleton.bones.size()));
    slot = static_cast<uint16_t>(plan.palette.size());
    plan.palette.push_back(static_cast<uint16_t>(bone));
  }
  plan.slots.assign(nv, {0, 0, 0, 0});
  plan.weights.assign(nv, {0, 0, 0, 0});
  for (size_t v = 0; v < nv; ++v) {
    for (size_t k = 0; k < counts[v]; ++k) {
      plan.slots[v][k] = slotOf[chosen[v][k].bone];
      plan.weights[v][k] = chosen[v][k].weight;
    }
  }
  layoutElements(mesh, o.layout, plan);
  // §3.3 islands: the triangles split into contiguous draw ranges.
  const uint32_t triangles = static_cast<uint32_t>(mesh.indices.size() / 3);
  const uint32_t islands = std::max<uint32_t>(1, std::min(o.islandsPerMesh, std::max<uint32_t>(triangles, 1)));
  const uint32_t per = (triangles + islands - 1) / islands;
  for (uint32_t i = 0; i < islands; ++i) {
    const uint32_t first = std::min(triangles, i * per), last = std::min(triangles, (i + 1) * per);
    plan.islands.emplace_back(first * 3, (last - first) * 3);
  }
  plan.min = plan.max = mesh.positions[0];
  for (const glm::vec3& p : mesh.positions) {
    plan.min = glm::min(plan.min, p);
    plan.max = glm::max(plan.max, p);
  }
  return plan;
}

// Vertex bytes of one mesh in the arena's byte order.
std::vector<uint8_t> vertexBytes(const Mesh& mesh, const MeshPlan& plan, const VertexLayout& l, Endian endian) {
  const size_t nv = mesh.vertexCount();
  std::vector<uint8_t> out(nv * plan.stride, 0);
  // Raw (not normalised) weight types hold weights scaled to their range; the reader normalises.
  const float weightScale = l.weights == kUB256 ? 255.0f : l.weights == kS32K ? 32767.0f : 1.0f;
  for (size_t v = 0; v < nv; ++v) {
    uint8_t* dst = out.data() + v * plan.stride;
    for (const VertexElement& e : plan.elements) {
      glm::vec4 value(0.0f);
      Meaning meaning = Meaning::Value;
      switch (e.usage) {
        case kXYZ: value = glm::vec4(mesh.positions[v], 0.0f); meaning = Meaning::Position; break;
        case kNormal: value = glm::vec4(mesh.normals[v], 0.0f); break;
        case kTex0: value = glm::vec4(mesh.uvs[v], 0.0f, 0.0f); break;
        case kWeights:
          for (int k = 0; k < 4; ++k) value[k] = plan.weights[v][static_cast<size_t>(k)] * weightScale;
          break;
        case kIndices:
          for (int k = 0; k < 4; ++k) value[k] = plan.slots[v][static_cast<size_t>(k)];
          meaning = Meaning::Integer;
          break;
        default: break;
      }
      encodeElement(e, meaning, value, endian, dst + e.offset);
    }
  }
  return out;
}

void writeAABB(ByteWriter& w, const glm::vec3& min, const glm::vec3& max) {
  for (int k = 0; k < 3; ++k) w.f32(min[k]);
  w.f32(0.0f);
  for (int k = 0; k < 3; ++k) w.f32(max[k]);
  w.f32(0.0f);
}

// Appends an object at a 16-aligned offset and records its row.
template <class Fn>
void object(ByteWriter& w, std::vector<Row>& rows, uint32_t row, uint32_t type, Fn&& body) {
  w.align(kObjectAlign);
  const size_t start = w.size();
  body(start);
  rows[row] = Row{type, static_cast<uint32_t>(start), static_cast<uint32_t>(w.size() - start), kObjectAlign};
}

struct ModelLayout {
  size_t meshTable, nameTable, names, aabbs, areas;
};

void writeModelData(ByteWriter& w, const Rig& rig, const std::vector<MeshPlan>& plans, const std::vector<glm::mat4>& ibms,
                    uint32_t firstMeshRow, ModelLayout& layout) {
  const size_t start = w.size();
  const auto& bones = rig.skeleton.bones;
  size_t islands = 0;
  glm::vec3 min(0.0f), max(0.0f);
  for (size_t m = 0; m < plans.size(); ++m) {
    islands += plans[m].islands.size();
    min = m == 0 ? plans[m].min : glm::min(min, plans[m].min);
    max = m == 0 ? plans[m].max : glm::max(max, plans[m].max);
  }
  size_t namesBytes = 0;
  for (const Bone& b : bones) namesBytes += b.name.size() + 1;
  layout.meshTable = model::kHeaderSize + bones.size() * model::kMatrixSize;
  layout.nameTable = layout.meshTable + plans.size() * model::kMeshTableEntry;
  layout.names = layout.nameTable + bones.size() * 4;
  layout.aabbs = (layout.names + namesBytes + 15) / 16 * 16;
  layout.areas = layout.aabbs + islands * model::kAABBSize;
  writeAABB(w, min, max);
  w.u32(model::kHeaderSize);
  w.u32(static_cast<uint32_t>(layout.meshTable));
  w.u32(static_cast<uint32_t>(layout.nameTable));
  w.u32(static_cast<uint32_t>(layout.names));
  w.u16(static_cast<uint16_t>(plans.size()));  // m_iNumTotalBones: PsgBuilder writes numMeshes (§4.1)
  w.u16(static_cast<uint16_t>(plans.size()));
  w.u16(static_cast<uint16_t>(bones.size()));
  w.u16(static_cast<uint16_t>(islands));
  w.u32(static_cast<uint32_t>(layout.aabbs));
  w.u32(static_cast<uint32_t>(layout.areas));
  for (const glm::mat4& m : ibms) {
    for (int k = 0; k < 16; ++k) w.f32(m[k / 4][k % 4]);
  }
  for (size_t m = 0; m < plans.size(); ++m) {
    w.u32(firstMeshRow + static_cast<uint32_t>(m) * kRowsPerMesh + 4);  // the OptiMesh row
    w.u32(0);
  }
  size_t nameAt = layout.names;
  for (const Bone& b : bones) {
    w.u32(static_cast<uint32_t>(nameAt));
    nameAt += b.name.size() + 1;
  }
  for (const Bone& b : bones) w.cString(b.name);
  while (w.size() - start < layout.aabbs) w.u8(0);
  // Each island gets its mesh's box: rigport does not split bounds per island (readers ignore them).
  for (const MeshPlan& p : plans) {
    for (size_t i = 0; i < p.islands.size(); ++i) writeAABB(w, p.min, p.max);
  }
  for (const MeshPlan& p : plans) {
    const glm::vec3 extent = p.max - p.min;
    for (size_t i = 0; i < p.islands.size(); ++i) {
      for (int k = 0; k < 3; ++k) w.f32(extent[k]);  // (extent, 0), as PsgBuilder writes it
      w.f32(0.0f);
    }
  }
}

void writeVertexDescriptor(ByteWriter& w, const MeshPlan& plan) {
  uint32_t typesFlags = 0;
  for (const VertexElement& e : plan.elements) typesFlags |= 1u << e.usage;
  w.s32(0);  // m_refCount
  w.u32(typesFlags);
  w.u16(1);  // m_numStreams
  w.u16(static_cast<uint16_t>(plan.elements.size()));
  w.u16(static_cast<uint16_t>((1u << plan.elements.size()) - 1));  // one frequency-divider bit per element
  w.u16(0);
  for (const VertexElement& e : plan.elements) {
    w.u8(e.vertexType);
    w.u8(e.numComponents);
    w.u8(e.stream);
    w.u8(e.offset);
    w.u16(e.stride);
    w.u8(e.usage);
    w.u8(e.elementClass);
  }
  w.raw(kVertexDescriptorTrailer);
}

struct MeshRows {
  uint32_t vd, vb, ib, helper, optiMesh, vertexBytes, indexBytes;
  explicit MeshRows(uint32_t base)
      : vd(base), vb(base + 1), ib(base + 2), helper(base + 3), optiMesh(base + 4), vertexBytes(base + 5), indexBytes(base + 6) {}
};

void writeOptiMesh(ByteWriter& w, const Mesh& mesh, const MeshPlan& plan, const MeshRows& rows, uint32_t subrefAreas,
                   uint32_t materialRef) {
  writeAABB(w, plan.min, plan.max);
  w.u32(static_cast<uint32_t>(mesh.vertexCount()));
  w.u32(materialRef);  // m_pMaterial: a subreference into RenderMaterialData (rw4_materials.md §4), or none
  w.u32(rows.vd);
  w.u32(rows.helper);
  w.u32(rows.ib);
  w.u32(rows.vb);
  w.u32(static_cast<uint32_t>(plan.islands.size()));
  w.u32(subreference(subrefAreas));
  w.u32(subreference(subrefAreas + 1));
  w.u32(optimesh::kHeaderSize);
  w.u32(static_cast<uint32_t>(plan.palette.size()));
  w.u32(static_cast<uint32_t>(optimesh::kHeaderSize + plan.islands.size() * kDrawParamsSize));
  w.zeros(optimesh::kHeaderSize - optimesh::kNumBlendShapes);  // no blend shapes, padding
  for (const auto& [start, count] : plan.islands) {
    w.u32(start);
    w.u32(count);
    w.u8(kPrimitiveTriangles);
    w.zeros(3);
  }
  for (uint16_t g : plan.palette) w.u16(g);
  w.u16(optimesh::kRemapSentinel);  // lets the walkthrough's +0x6C reading stop too
}

Status checkBones(const Rig& rig) {
  const auto& bones = rig.skeleton.bones;
  if (bones.empty()) return usage("an arena's RenderModelData needs at least one bone");
  if (bones.size() > 65535) return usage(fmt::format("{} bones; RenderModelData counts them in 16 bits", bones.size()));
  for (size_t b = 0; b < bones.size(); ++b) {
    const std::string& n = bones[b].name;
    const bool printable = !n.empty() && std::all_of(n.begin(), n.end(), [](char c) { return c >= 0x20 && c < 0x7F; });
    if (!printable) return usage(fmt::format("bone {}: RenderModelData names must be printable ASCII, not '{}'", b, n));
  }
  return Ok{};
}

// The id a Spore arena names a bone or clip by: the one it was read with, else sporeNameId.
uint32_t sporeBoneId(const Bone& b) {
  if (b.nameHash && *b.nameHash <= UINT32_MAX) return static_cast<uint32_t>(*b.nameHash);
  return sporeNameId(b.name);
}

uint32_t sporeAnimationId(const Animation& a) {
  const nlohmann::json* id = a.extras.is_object() && a.extras.contains("rw4") ? &a.extras["rw4"] : nullptr;
  if (id != nullptr && id->is_object() && id->contains("animationId") && (*id)["animationId"].is_number_unsigned()) {
    return (*id)["animationId"].get<uint32_t>();
  }
  return sporeNameId(a.name);
}

std::vector<uint8_t> headerBytes(const PlatformInfo& pi, uint32_t id, uint32_t numRows, uint32_t dictStart, uint32_t sections,
                                 const std::vector<ResourceSize>& resources) {
  ByteWriter h(pi.bigEndian ? Endian::Big : Endian::Little);
  h.raw(kMagicPrefix);
  for (char c : pi.tag) h.u8(static_cast<uint8_t>(c));
  h.raw(kMagicSuffix);
  h.u8(pi.bigEndian ? 1 : 0);
  h.u8(32);  // pointerSizeInBits
  h.u8(4);   // pointerAlignment
  h.u8(0);
  for (char c : kMajorVersion) h.u8(static_cast<uint8_t>(c));
  for (char c : kMinorVersion) h.u8(static_cast<uint8_t>(c));
  h.u32(0);  // buildNo
  h.u32(id);
  h.u32(numRows);
  h.u32(numRows);
  h.u32(pi.alignment);
  h.u32(0);  // virt
  h.u32(dictStart);
  h.u32(sections);
  h.zeros(12);  // base, unfixContext, fixContext
  for (const ResourceSize& r : resources) {
    h.u32(r.size);
    h.u32(r.align);
  }
  for (const ResourceSize& r : resources) {  // m_resourcesUsed
    h.u32(r.size);
    h.u32(r.align);
  }
  h.zeros(4 * resources.size() + 4);  // runtime pointers, arenaGroup
  return h.take();
}

}  // namespace

Result<std::vector<uint8_t>> writeArena(const Rig& input, const ArenaWriteOptions& o) {
  // In the platform's own axes (axes.hpp), which a reader of the arena takes it to be in.
  std::optional<Rig> converted;
  const AxisSystem axes = axesOf(o.platform);
  if (input.provenance.axes != axes) {
    converted = input;
    convertAxes(*converted, axes);
  }
  const Rig& rig = converted ? *converted : input;
  const bool spore = o.sporeMeshes;
  if (spore && o.platform != Platform::Pc) return usage("Spore's mesh objects are written to PC (w32) arenas only");
  RP_CHECK(checkLayout(o.layout));
  RP_CHECK(checkBones(rig));
  if (rig.meshes.size() > 65535) return usage(fmt::format("{} meshes; RenderModelData counts them in 16 bits", rig.meshes.size()));
  const PlatformInfo& pi = platformInfo(o.platform);
  const Endian endian = pi.bigEndian ? Endian::Big : Endian::Little;
  const auto& bones = rig.skeleton.bones;

  std::vector<MeshPlan> plans;
  std::vector<SporeMeshBytes> sporeMeshes;
  std::vector<std::optional<SporeBlendShapeBytes>> sporeShapes;  // per Spore mesh: its BlendShapeBuffer, when it has morph targets
  uint32_t islands = 0;
  for (size_t m = 0; m < rig.meshes.size(); ++m) {
    if (spore && !rig.meshes[m].morphTargets.empty()) {
      RP_ASSIGN(SporeBlendShapeBytes bytes, encodeSporeBlendShapeMesh(rig.meshes[m], m));
      sporeMeshes.push_back(bytes.mesh);
      sporeShapes.push_back(std::move(bytes));
      continue;
    }
    if (spore) {
      RP_ASSIGN(SporeMeshBytes bytes, encodeSporeMesh(rig.meshes[m], m));
      sporeMeshes.push_back(std::move(bytes));
      sporeShapes.emplace_back();
      continue;
    }
    RP_ASSIGN(MeshPlan plan, planMesh(rig, rig.meshes[m], m, o));
    plan.firstIsland = islands;
    islands += static_cast<uint32_t>(plan.islands.size());
    plans.push_back(std::move(plan));
  }
  if (islands > 65535) return usage(fmt::format("{} islands; RenderModelData counts them in 16 bits", islands));
  const std::vector<glm::mat4> world = rig.skeleton.worldBindMatrices();
  std::vector<glm::mat4> ibms(bones.size());
  for (size_t b = 0; b < bones.size(); ++b) ibms[b] = bones[b].inverseBind.value_or(glm::inverse(world[b]));

  // Rows: [RenderModelData (not in Spore's layout)], [Skeleton], [AnimationSkin], one KeyframeAnim
  // per animation when asked for, [Spore's Animations map], then each mesh's rows (MeshRows, or
  // kRowsPerSporeMesh).
  const uint32_t resourceType = o.platform == Platform::Ps3 ? kPs3GraphicsResource : kPcBufferResource;
  const uint32_t resourceIndex = resourceType - kBaseResourceFirst + 1;
  const bool skeletonObject = o.skeletonObject || spore;
  const bool animationObjects = skeletonObject && o.animationObjects;
  const bool animationSkin = animationObjects || spore;  // Spore's bind pose is only there
  const uint32_t numAnimations = animationObjects ? static_cast<uint32_t>(rig.animations.size()) : 0;
  // Each morph weight track of a clip on a mesh written as a BlendShapeBuffer: a KeyframeAnim of
  // BlendFactor channels beside the clip's own, under the clip's id in the Animations map.
  struct MorphClip {
    uint32_t animation;
    const MorphWeightTrack* track;
    size_t mesh;
  };
  std::vector<MorphClip> morphClips;
  for (uint32_t a = 0; spore && a < numAnimations; ++a) {
    for (const MorphWeightTrack& t : rig.animations[a].morphWeights) {
      size_t m = t.meshIndex >= 0 && static_cast<size_t>(t.meshIndex) < rig.meshes.size() ? static_cast<size_t>(t.meshIndex) : rig.meshes.size();
      if (m == rig.meshes.size() || !t.drives(rig.meshes[m])) {
        m = 0;
        while (m < rig.meshes.size() && !t.drives(rig.meshes[m])) ++m;
      }
      if (m < rig.meshes.size() && sporeShapes[m] && !t.times.empty() && t.weights.size() == t.times.size() * t.targetCount) {
        morphClips.push_back(MorphClip{a, &t, m});
      }
    }
  }
  const auto numShapeMeshes = static_cast<uint32_t>(std::count_if(sporeShapes.begin(), sporeShapes.end(), [](const auto& b) { return b.has_value(); }));
  const bool animationsMap = spore && numAnimations > 0;
  const uint32_t skeletonRow = spore ? 0 : 1, skinRow = skeletonRow + 1, firstAnimationRow = skinRow + (animationSkin ? 1 : 0);
  const uint32_t firstMorphClipRow = firstAnimationRow + numAnimations;
  const uint32_t mapRow = firstMorphClipRow + static_cast<uint32_t>(morphClips.size());
  const uint32_t firstMeshRow = skeletonObject ? mapRow + (animationsMap ? 1 : 0) : 1;
  const uint32_t meshRowsEnd = firstMeshRow + (spore ? kRowsPerSporeMesh * static_cast<uint32_t>(sporeMeshes.size())
                                                     : kRowsPerMesh * static_cast<uint32_t>(plans.size()));
  // The RenderMaterialData, last (rw4_materials.md): one subreference per mesh drawn with a material.
  const bool materials = o.materials && !spore && !rig.materials.empty();
  const uint32_t materialRow = meshRowsEnd;
  const uint32_t numRows = meshRowsEnd + (materials ? 1 : 0);
  std::vector<Row> rows(numRows);
  std::vector<uint32_t> types{0, resourceType};
  if (!spore) types.push_back(kRenderModelData);
  if (skeletonObject) types.push_back(kSkeleton);
  if (animationSkin) types.push_back(kAnimationSkin);
  if (numAnimations > 0) types.push_back(kKeyframeAnim);
  if (animationsMap) types.push_back(spore::kAnimations);
  if (!plans.empty()) types.insert(types.end(), {kVertexDescriptor, kVertexBuffer, kIndexBuffer, kMeshHelper, kRenderOptiMeshData});
  if (!sporeMeshes.empty()) types.insert(types.end(), {spore::kVertexDescription, spore::kVertexBuffer, spore::kIndexBuffer, spore::kMesh});
  if (numShapeMeshes > 0) types.insert(types.end(), {spore::kBlendShapeBuffer, spore::kBlendShape});
  if (materials) types.push_back(kRenderMaterialData);
  std::sort(types.begin() + 1, types.end());

  ByteWriter w(endian);
  const uint32_t sections = headerSize(pi.numResources);
  w.zeros(sections);
  // §2.2 sections: manifest, types, external arenas, subreferences, atoms.
  const uint32_t typesAt = 0x1C, externalAt = typesAt + 12 + 4 * static_cast<uint32_t>(types.size());
  const uint32_t subrefsAt = externalAt + 36, atomsAt = subrefsAt + 28;
  // Subreferences: the Animations map's, then two per BlendShape (its times and ids), two per
  // RenderOptiMeshData, then the materials'.
  const uint32_t firstMaterialSubref = 2 * static_cast<uint32_t>(plans.size()) + (animationsMap ? 1 : 0) + 2 * numShapeMeshes;
  std::vector<uint32_t> materialRefs(plans.size(), kRefNoneValue);  // each mesh's m_pMaterial
  std::vector<SubreferenceRecord> materialSubrefs;
  for (size_t m = 0; materials && m < plans.size(); ++m) {
    const std::vector<MeshPart>& parts = rig.meshes[m].parts;
    if (parts.empty() || parts.front().material >= rig.materials.size()) continue;
    materialRefs[m] = subreference(firstMaterialSubref + static_cast<uint32_t>(materialSubrefs.size()));
    materialSubrefs.push_back({materialRow, static_cast<uint32_t>(material::kHeaderSize + parts.front().material * material::kMaterialSize)});
  }
  const uint32_t numSubrefs = firstMaterialSubref + static_cast<uint32_t>(materialSubrefs.size());
  w.u32(kSectionManifest);
  w.u32(kManifestEntries);
  w.u32(0xC);
  for (uint32_t off : {typesAt, externalAt, subrefsAt, atomsAt}) w.u32(off);
  w.u32(kSectionTypes);
  w.u32(static_cast<uint32_t>(types.size()));
  w.u32(0xC);
  for (uint32_t t : types) w.u32(t);
  for (uint32_t v : {uint32_t{kSectionExternalArenas}, 3u, 0x18u, o.arenaId, 0xFFB00000u, o.arenaId, 0u, 0u, 0u}) w.u32(v);
  w.u32(kSectionSubreferences);
  w.u32(numSubrefs);
  w.zeros(12);  // dictAfterRefix, recordsAfterRefix, dict
  const size_t recordsField = w.size();
  w.u32(0);
  w.u32(numSubrefs);
  w.u32(kSectionAtoms);
  w.zeros(8);

  ModelLayout layout{};
  std::vector<SubreferenceRecord> subrefs;
  if (!spore) object(w, rows, 0, kRenderModelData, [&](size_t) { writeModelData(w, rig, plans, ibms, firstMeshRow, layout); });
  if (skeletonObject) {
    const bool absolute = pi.platform == Platform::Pc;
    RwSkeleton s;
    s.skeletonId = o.arenaId;
    for (const Bone& b : bones) {
      // rigport's choice where no id was read: the note documents no hash function
      s.nameHashes.push_back(spore ? sporeBoneId(b) : fnv1_32Lower(b.name));
      s.flags.push_back(0);
      s.parents.push_back(b.parent);
    }
    object(w, rows, skeletonRow, kSkeleton, [&](size_t) { writeRwSkeleton(w, s, absolute); });
    if (animationSkin) {
      const RwAnimationSkin skin{skinRow, ibms};
      object(w, rows, skinRow, kAnimationSkin, [&](size_t) { writeRwAnimationSkin(w, skin, absolute); });
    }
    for (uint32_t a = 0; a < numAnimations; ++a) {
      Animation anim = rig.animations[a];
      makeAbsolute(anim, rig.skeleton);
      object(w, rows, firstAnimationRow + a, kKeyframeAnim,
             [&](size_t) { writeKeyframeAnim(w, anim, rig.skeleton, s.nameHashes, o.arenaId, absolute); });
    }
    for (uint32_t c = 0; c < morphClips.size(); ++c) {
      const SporeBlendShapeBytes& shapes = *sporeShapes[morphClips[c].mesh];
      object(w, rows, firstMorphClipRow + c, kKeyframeAnim, [&](size_t) {
        writeBlendFactorAnim(w, *morphClips[c].track, rig.animations[morphClips[c].animation].duration, shapes.shapeIds, shapes.blendShapeId,
                             absolute);
      });
    }
  }
  if (animationsMap) {  // spore_meshes.md "Animations": a subreference to itself, then (id, KeyframeAnim) pairs
    object(w, rows, mapRow, spore::kAnimations, [&](size_t) {
      w.u32(subreference(static_cast<uint32_t>(subrefs.size())));
      w.u32(numAnimations + static_cast<uint32_t>(morphClips.size()));
      for (uint32_t a = 0; a < numAnimations; ++a) {
        w.u32(sporeAnimationId(rig.animations[a]));
        w.u32(firstAnimationRow + a);
      }
      for (uint32_t c = 0; c < morphClips.size(); ++c) {
        w.u32(sporeAnimationId(rig.animations[morphClips[c].animation]));
        w.u32(firstMorphClipRow + c);
      }
    });
    subrefs.push_back({mapRow, static_cast<uint32_t>(spore::animations::kHeaderSize)});
  }
  ByteWriter gfx(endian);
  for (size_t m = 0; m < sporeMeshes.size(); ++m) {
    const SporeMeshBytes& bytes = sporeMeshes[m];
    const uint32_t vd = firstMeshRow + kRowsPerSporeMesh * static_cast<uint32_t>(m), vb = vd + 1, ib = vd + 2, mesh = vd + 3;
    const uint32_t vertexBytesRow = vd + 4, indexBytesRow = vd + 5;
    if (const std::optional<SporeBlendShapeBytes>& shapes = sporeShapes[m]) {
      // A blend-shape mesh: the BlendShapeBuffer in the vertex buffer's row, the BlendShape object in
      // the vertex bytes' (its vertices live in the buffer object itself).
      gfx.align(kBufferAlign);
      rows[indexBytesRow] = Row{resourceType, static_cast<uint32_t>(gfx.size()), static_cast<uint32_t>(bytes.indices.size()), kBufferAlign};
      gfx.raw(bytes.indices);
      const auto times = static_cast<uint32_t>(subrefs.size());
      subrefs.push_back({vertexBytesRow, static_cast<uint32_t>(spore::blendshape::kHeaderSize)});
      subrefs.push_back({vertexBytesRow, static_cast<uint32_t>(spore::blendshape::kHeaderSize + 4 * shapes->shapeIds.size())});
      object(w, rows, vd, spore::kVertexDescription, [&](size_t) { w.raw(bytes.description); });
      object(w, rows, vb, spore::kBlendShapeBuffer, [&](size_t) { w.raw(shapes->buffer); });
      object(w, rows, ib, spore::kIndexBuffer, [&](size_t) { writeSporeIndexBuffer(w, bytes, indexBytesRow); });
      object(w, rows, mesh, spore::kMesh, [&](size_t) { writeSporeMeshObject(w, bytes, ib, vb); });
      object(w, rows, vertexBytesRow, spore::kBlendShape,
             [&](size_t) { writeSporeBlendShape(w, *shapes, subreference(times), subreference(times + 1)); });
      continue;
    }
    for (const auto& [row, data] : {std::pair{vertexBytesRow, &bytes.vertices}, std::pair{indexBytesRow, &bytes.indices}}) {
      gfx.align(kBufferAlign);
      rows[row] = Row{resourceType, static_cast<uint32_t>(gfx.size()), static_cast<uint32_t>(data->size()), kBufferAlign};
      gfx.raw(*data);
    }
    object(w, rows, vd, spore::kVertexDescription, [&](size_t) { w.raw(bytes.description); });
    object(w, rows, vb, spore::kVertexBuffer, [&](size_t) { writeSporeVertexBuffer(w, bytes, vd, vertexBytesRow); });
    object(w, rows, ib, spore::kIndexBuffer, [&](size_t) { writeSporeIndexBuffer(w, bytes, indexBytesRow); });
    object(w, rows, mesh, spore::kMesh, [&](size_t) { writeSporeMeshObject(w, bytes, ib, vb); });
  }
  for (size_t m = 0; m < plans.size(); ++m) {
    const Mesh& mesh = rig.meshes[m];
    const MeshPlan& plan = plans[m];
    const MeshRows r(firstMeshRow + kRowsPerMesh * static_cast<uint32_t>(m));
    const uint32_t subrefAreas = static_cast<uint32_t>(subrefs.size());
    subrefs.push_back({0, static_cast<uint32_t>(layout.areas + plan.firstIsland * model::kAreaSize)});
    subrefs.push_back({0, static_cast<uint32_t>(layout.aabbs + plan.firstIsland * model::kAABBSize)});
    gfx.align(kBufferAlign);
    const size_t vertexAt = gfx.size();
    gfx.raw(vertexBytes(mesh, plan, o.layout, endian));
    rows[r.vertexBytes] = Row{resourceType, static_cast<uint32_t>(vertexAt), static_cast<uint32_t>(gfx.size() - vertexAt), kBufferAlign};
    gfx.align(kBufferAlign);
    const size_t indexAt = gfx.size();
    for (uint32_t i : mesh.indices) gfx.u16(static_cast<uint16_t>(i));
    rows[r.indexBytes] = Row{resourceType, static_cast<uint32_t>(indexAt), static_cast<uint32_t>(gfx.size() - indexAt), kBufferAlign};

    object(w, rows, r.vd, kVertexDescriptor, [&](size_t) { writeVertexDescriptor(w, plan); });
    object(w, rows, r.vb, kVertexBuffer, [&](size_t) {
      for (uint32_t v : {r.vertexBytes, 0u, rows[r.vertexBytes].size, 0u}) w.u32(v);
    });
    object(w, rows, r.ib, kIndexBuffer, [&](size_t) {
      for (uint32_t v : {r.indexBytes, 0u, static_cast<uint32_t>(mesh.indices.size()), kIndexBufferFlags, kIndexBufferTrailer}) w.u32(v);
    });
    object(w, rows, r.helper, kMeshHelper, [&](size_t) {
      for (uint32_t v : {1u, 1u, r.ib, r.vb}) w.u32(v);
    });
    object(w, rows, r.optiMesh, kRenderOptiMeshData, [&](size_t) { writeOptiMesh(w, mesh, plan, r, subrefAreas, materialRefs[m]); });
  }
  if (materials) object(w, rows, materialRow, kRenderMaterialData, [&](size_t) { writeMaterialData(w, rig.materials); });
  subrefs.insert(subrefs.end(), materialSubrefs.begin(), materialSubrefs.end());
  gfx.align(kBufferAlign);

  w.align(kObjectAlign);
  const uint32_t dictStart = static_cast<uint32_t>(w.size());
  for (const Row& row : rows) {
    const auto typeIndex = static_cast<uint32_t>(std::find(types.begin(), types.end(), row.typeId) - types.begin());
    for (uint32_t v : {row.ptr, 0u, row.size, row.align, typeIndex, row.typeId}) w.u32(v);
  }
  w.patchU32(recordsField, static_cast<uint32_t>(w.size()));
  for (const SubreferenceRecord& s : subrefs) {
    w.u32(s.object);
    w.u32(s.offset);
  }
  w.align(kObjectAlign);

  std::vector<ResourceSize> resources(pi.numResources, ResourceSize{0, 1});
  resources[0] = ResourceSize{static_cast<uint32_t>(w.size()), kObjectAlign};
  resources[resourceIndex] = ResourceSize{static_cast<uint32_t>(gfx.size()), kBufferAlign};
  std::vector<uint8_t> out = w.take();
  const std::vector<uint8_t> header = headerBytes(pi, o.arenaId, numRows, dictStart, sections, resources);
  std::copy(header.begin(), header.end(), out.begin());
  const std::vector<uint8_t> g = gfx.take();
  out.insert(out.end(), g.begin(), g.end());
  return out;
}

}  // namespace rigport::rw4
