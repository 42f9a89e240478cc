// Arena → Asset (rw4_arena.md §2 for the container, §4.1–4.2 and §5 for the objects).
#include <algorithm>
#include <filesystem>
#include <optional>

#include <fmt/format.h>

#include "core/validate.hpp"
#include "formats/rw4/arena.hpp"
#include "formats/rw4/arena_places.hpp"
#include "formats/rw4/axes.hpp"
#include "formats/rw4/rw4.hpp"
#include "formats/rw4/bind_skeleton.hpp"
#include "formats/rw4/keyframe_anim.hpp"
#include "formats/rw4/material.hpp"
#include "formats/rw4/model_data.hpp"
#include "formats/rw4/opti_mesh.hpp"
#include "formats/rw4/rw_skeleton.hpp"
#include "formats/rw4/spore_mesh.hpp"
#include "formats/rw4/texture.hpp"

namespace rigport::rw4 {
namespace {

std::string where(const Arena& arena, const DictEntry& e) {
  if (!e.inFile) return "outside the file";
  if (e.resource == 0) return "main memory";
  return fmt::format("{} resource {}", arena.platform->name, e.resource);
}

nlohmann::json arenaExtras(const Arena& arena, uint32_t row) {
  return {{"rw4", {{"platform", arena.platform->name}, {"arenaId", arena.id}, {"object", row}}}};
}

// The RW Skeleton objects of the arena, read; one that fails to read is skipped with a warning.
std::vector<RwSkeleton> readSkeletonObjects(const Arena& arena, const ByteReader& root, Provenance& prov) {
  std::vector<RwSkeleton> out;
  for (uint32_t i = 0; i < arena.dictionary.size(); ++i) {
    if (arena.dictionary[i].typeId != kSkeleton) continue;
    auto obj = objectReader(arena, root, i, "Skeleton");
    auto s = obj ? readRwSkeleton(arena, *obj, i) : Result<RwSkeleton>(obj.error());
    if (!s) {
      prov.warn("rw4-skeleton-object", fmt::format("Skeleton (row {}) is not read: {}", i, s.error().describe()));
      continue;
    }
    out.push_back(std::move(*s));
  }
  return out;
}

// A mesh read for the rig (`what` names its object): kept when its structure is sound, then handed
// to ReadOptions::meshBuilt when set (the rig being rigs[rigIndex] of the asset).
// Whether the mesh was kept.
Result<bool> keepMesh(const Arena& arena, const ByteReader& root, const ReadContext& ctx, size_t rigIndex, const std::string& what,
                      Mesh mesh, Rig& rig) {
  rig.meshes.push_back(std::move(mesh));
  // What meshBuilt is promised; a read without it makes the same check, so both keep the same meshes.
  if (const Status structure = validateMesh(rig, rig.meshes.size() - 1, MeshChecks::Structure); !structure) {
    rig.meshes.pop_back();
    rig.provenance.warn("rw4-mesh-skipped", fmt::format("{} is skipped: {}", what, structure.error().describe()));
    return false;
  }
  if (!ctx.options.meshBuilt) return true;
  RP_CHECK(ctx.options.meshBuilt(rig, rigIndex, rig.meshes.size() - 1));
  // The mesh's vertex and index data (base resources) go back with it; a later mesh that shares a
  // buffer reads it again from the page cache.
  if (ctx.releaseBytes) {
    for (const DictEntry& e : arena.dictionary) {
      if (e.resource != 0 && e.inFile) ctx.releaseBytes(root.data().subspan(e.fileOffset, e.size));
    }
  }
  return true;
}

// Spore's meshes (spore_mesh.hpp), on the rig of the arena's Skeleton object: its blend indices
// name that skeleton's bones in file order, which rig.skeleton.joints maps to the rig's. Blend-shape
// meshes kept add their shapes to `morphs`, for the BlendFactor clips.
Status addSporeMeshes(const Arena& arena, const ByteReader& root, const ReadContext& ctx, size_t rigIndex, Rig& rig, RigPlace* place,
                      std::vector<SporeMorphMesh>& morphs) {
  for (SporeMesh& s : readSporeMeshes(arena, root, rig.skeleton.joints, rig.provenance)) {
    for (uint32_t row : s.rows) rig.itemIds.push_back(std::to_string(row));
    const std::string what = fmt::format("{} (row {})", s.morph ? "BlendShapeBuffer" : "VertexBuffer", s.rows.front());
    RP_ASSIGN(const bool kept, keepMesh(arena, root, ctx, rigIndex, what, std::move(s.mesh), rig));
    if (kept && place != nullptr) place->sporeMeshes.push_back(s.place);
    if (kept && s.morph) morphs.push_back(std::move(*s.morph));
  }
  return Ok{};
}

// Spore keeps a clip's bones and its blend-shape weights in two KeyframeAnims under one Animations
// id (the add-on exports an armature action and a shape-key action of the same name): a clip of
// weights alone joins the clip of the same id that keys bones, as one glTF animation.
void mergeClipsOfOneId(ClipSet& clips) {
  auto idOf = [](const Animation& a) -> std::optional<uint32_t> {
    if (!a.extras.is_object() || !a.extras.contains("rw4") || !a.extras["rw4"].contains("animationId")) return std::nullopt;
    return a.extras["rw4"]["animationId"].get<uint32_t>();
  };
  for (size_t i = 0; i < clips.animations.size(); ++i) {
    Animation& weights = clips.animations[i];
    const std::optional<uint32_t> id = idOf(weights);
    if (!id || weights.morphWeights.empty() || !weights.tracks.empty() || !weights.scalars.empty()) continue;
    for (size_t j = 0; j < clips.animations.size(); ++j) {
      Animation& bones = clips.animations[j];
      if (j == i || idOf(bones) != id || !bones.morphWeights.empty()) continue;
      for (MorphWeightTrack& t : weights.morphWeights) bones.morphWeights.push_back(std::move(t));
      bones.duration = std::max(bones.duration, weights.duration);
      bones.extras["rw4"]["blendFactorObject"] = weights.extras["rw4"]["object"];
      clips.animations.erase(clips.animations.begin() + static_cast<std::ptrdiff_t>(i));
      clips.animationItems.erase(clips.animationItems.begin() + static_cast<std::ptrdiff_t>(i));
      --i;
      break;
    }
  }
}

// Meshes of one model, each drawn with the material its m_pMaterial names (rw4_materials.md §4):
// every failure skips that mesh with a warning naming the error.
Status readMeshes(const Arena& arena, const ByteReader& root, const ModelData& md, const std::vector<uint32_t>& fileToRig,
                  const ArenaMaterials& materials, const ReadContext& ctx, size_t rigIndex, Rig& rig, RigPlace* rigPlace) {
  for (uint32_t row : md.meshes) {
    const uint32_t type = arena.dictionary[row].typeId;
    if (type != kRenderOptiMeshData) {
      rig.provenance.warn("rw4-mesh-type", fmt::format("mesh row {} is a {}, not a RenderOptiMeshData; skipped", row, typeName(type)));
      continue;
    }
    OptiMeshPlace place;
    auto mesh = readOptiMesh(arena, root, row, fileToRig, rig.provenance, rigPlace != nullptr ? &place : nullptr, ctx.options.storage);
    if (!mesh) {
      rig.provenance.warn("rw4-mesh-skipped", fmt::format("RenderOptiMeshData (row {}) is skipped: {}", row, mesh.error().describe()));
      continue;
    }
    if (!*mesh) continue;
    Mesh& m = **mesh;
    m.name = fmt::format("mesh_{}", row);
    if (const auto material = meshMaterial(arena, root, row, materials, rig.provenance)) {
      m.parts.push_back(MeshPart{*material, 0, static_cast<uint32_t>(m.indices.size())});
    }
    RP_ASSIGN(const bool kept, keepMesh(arena, root, ctx, rigIndex, fmt::format("RenderOptiMeshData (row {})", row), std::move(m), rig));
    if (kept && rigPlace != nullptr) rigPlace->meshes.push_back(std::move(place));
  }
  return Ok{};
}

Result<Rig> readModel(const Arena& arena, const ByteReader& root, uint32_t row, const std::vector<RwSkeleton>& skeletons,
                      const ReadContext& ctx, size_t rigIndex, std::vector<bool>& skeletonUsed, RigPlace* place,
                      std::vector<SporeMorphMesh>& morphs) {
  Rig rig;
  RP_ASSIGN(ByteReader obj, objectReader(arena, root, row, "RenderModelData"));
  RP_ASSIGN(const ModelData md, readModelData(arena, obj, row, rig.provenance));
  ParentSource parents;
  parents.manifest = ctx.options.boneParents.get();
  const RwSkeleton* skeleton = nullptr;
  for (size_t s = 0; s < skeletons.size(); ++s) {
    if (skeletons[s].parents.size() != md.boneNames.size()) continue;
    skeletonUsed[s] = true;
    if (skeleton == nullptr) skeleton = &skeletons[s];
  }
  if (skeleton != nullptr) parents.skeletonObject = skeleton->parents;
  RP_ASSIGN(const std::vector<uint32_t> fileToRig, buildSkeleton(md, parents, rig));
  if (skeleton != nullptr) {  // the ids KeyframeAnim channels name bones by (§5)
    for (size_t fb = 0; fb < fileToRig.size(); ++fb) rig.skeleton.bones[fileToRig[fb]].nameHash = skeleton->nameHashes[fb];
  }
  ArenaMaterials materials = readArenaMaterials(arena, root, rig.provenance);
  rig.materials = std::move(materials.materials);  // before the meshes, whose parts a mesh check sees
  if (place != nullptr) {
    place->row = row;
    place->inverseBindAt = arena.dictionary[row].fileOffset + md.inverseBindOffset;
    place->fileToRig = fileToRig;
    place->nameSlots = md.nameSlots;
    for (NameSlot& slot : place->nameSlots) slot.at += arena.dictionary[row].fileOffset;
  }
  RP_CHECK(readMeshes(arena, root, md, fileToRig, materials, ctx, rigIndex, rig, place));
  if (skeleton != nullptr && skeleton == &skeletons.front()) RP_CHECK(addSporeMeshes(arena, root, ctx, rigIndex, rig, place, morphs));
  // `--item` takes any row `info` lists that is part of this rig.
  rig.itemIds.push_back(std::to_string(row));
  if (skeleton != nullptr) rig.itemIds.push_back(std::to_string(skeleton->row));
  for (uint32_t mesh : md.meshes) rig.itemIds.push_back(std::to_string(mesh));
  rig.extras = arenaExtras(arena, row);
  return rig;
}

// A Skeleton object with no RenderModelData (a PC model, §5): bones named by their hashes, the
// inverse bind pose from an AnimationSkin of the same count.
Result<Rig> readSkeletonRig(const Arena& arena, const ByteReader& root, const RwSkeleton& s, bool sporeMeshes, const ReadContext& ctx,
                            size_t rigIndex, RigPlace* place, std::vector<SporeMorphMesh>& morphs) {
  Rig rig;
  ModelData md;
  md.index = s.row;
  for (uint32_t h : s.nameHashes) md.boneNames.push_back(fmt::format("0x{:08X}", h));
  md.inverseBind.assign(s.parents.size(), glm::mat4(1.0f));
  bool haveSkin = false;
  for (uint32_t i = 0; i < arena.dictionary.size() && !haveSkin; ++i) {
    if (arena.dictionary[i].typeId != kAnimationSkin) continue;
    auto obj = objectReader(arena, root, i, "AnimationSkin");
    auto skin = obj ? readRwAnimationSkin(arena, *obj, i) : Result<RwAnimationSkin>(obj.error());
    if (!skin) {
      rig.provenance.warn("rw4-animation-skin", fmt::format("AnimationSkin (row {}) is not read: {}", i, skin.error().describe()));
      continue;
    }
    if (skin->inverseBind.size() != s.parents.size()) continue;
    md.inverseBind = skin->inverseBind;
    if (place != nullptr) place->inverseBindAt = static_cast<size_t>(skin->dataAt);
    rig.itemIds.push_back(std::to_string(i));
    haveSkin = true;
  }
  if (!haveSkin) {
    rig.provenance.warn("rw4-animation-skin", fmt::format("Skeleton (row {}): no AnimationSkin of {} bones; every bone rests at "
                                                          "its parent",
                                                          s.row, s.parents.size()));
  }
  ParentSource parents;
  parents.skeletonObject = s.parents;
  RP_ASSIGN(const std::vector<uint32_t> fileToRig, buildSkeleton(md, parents, rig));
  // Hashes by file order: joints[file bone] is the bone's rig index.
  for (size_t fb = 0; fb < s.nameHashes.size(); ++fb) rig.skeleton.bones[rig.skeleton.joints[fb]].nameHash = s.nameHashes[fb];
  if (place != nullptr) {
    place->modelData = false;
    place->row = s.row;
    place->fileToRig = fileToRig;
  }
  if (sporeMeshes) RP_CHECK(addSporeMeshes(arena, root, ctx, rigIndex, rig, place, morphs));
  rig.itemIds.push_back(std::to_string(s.row));
  rig.extras = arenaExtras(arena, s.row);
  return rig;
}

// Spore's meshes are skinned on the arena's Skeleton object; without one (a static model) they
// are not read: said, never skipped silently.
void warnSporeMeshesWithoutSkeleton(const Arena& arena, Provenance& prov) {
  size_t meshes = 0;
  for (const DictEntry& e : arena.dictionary) meshes += e.typeId == 0x00020009 ? 1 : 0;
  prov.warn("rw4-spore-mesh", fmt::format("{} Spore Mesh object(s) (0x00020009) are not read: the arena has no Skeleton (0x00070002) "
                                          "to skin them on (static models are not read)",
                                          meshes));
}

}  // namespace

Result<std::vector<ItemInfo>> listArena(const Source& source, ReadContext& ctx) {
  ByteReader root = ctx.reader(source.bytes());
  Provenance prov;
  RP_ASSIGN(const Arena arena, parseArena(root, prov));
  std::vector<ItemInfo> items;
  items.reserve(arena.dictionary.size());
  for (size_t i = 0; i < arena.dictionary.size(); ++i) {
    const DictEntry& e = arena.dictionary[i];
    items.push_back(ItemInfo{std::to_string(i), e.resource == 0 ? "object" : "resource",
                             fmt::format("{} (0x{:08X}) at 0x{:X}, {}", typeName(e.typeId), e.typeId, e.fileOffset, where(arena, e)),
                             e.size});
  }
  return items;
}

Result<Asset> readArena(const Source& source, ReadContext& ctx) { return readArena(source, ctx, nullptr); }

Result<Asset> readArena(const Source& source, ReadContext& ctx, ArenaPlaces* places) {
  ByteReader root = ctx.reader(source.bytes());
  Asset asset;
  RP_ASSIGN(const Arena arena, parseArena(root, asset.provenance));
  if (places != nullptr) places->platform = arena.platform->platform;
  asset.provenance.axes = axesOf(arena.platform->platform);
  const std::vector<RwSkeleton> skeletons = readSkeletonObjects(arena, root, asset.provenance);
  std::vector<bool> skeletonUsed(skeletons.size(), false);
  const bool sporeMeshes = hasSporeMeshes(arena);
  if (sporeMeshes && skeletons.empty()) warnSporeMeshesWithoutSkeleton(arena, asset.provenance);
  std::vector<uint32_t> models;
  std::vector<SporeMorphMesh> morphs;  // the blend-shape meshes read, for the BlendFactor clips
  for (uint32_t i = 0; i < arena.dictionary.size(); ++i) {
    if (arena.dictionary[i].typeId == kRenderModelData) models.push_back(i);
  }
  const std::string stem = std::filesystem::path(source.name()).stem().string();
  for (uint32_t row : models) {
    RigPlace place;
    RP_ASSIGN(Rig rig, readModel(arena, root, row, skeletons, ctx, asset.rigs.size(), skeletonUsed, places != nullptr ? &place : nullptr, morphs));
    if (places != nullptr) places->rigs.push_back(std::move(place));
    if (models.size() > 1) rig.name = fmt::format("{}_{}", stem, row);
    asset.rigs.push_back(std::move(rig));
  }
  for (size_t s = 0; s < skeletons.size(); ++s) {
    if (skeletonUsed[s]) continue;
    RigPlace place;
    RP_ASSIGN(Rig rig, readSkeletonRig(arena, root, skeletons[s], s == 0 && sporeMeshes, ctx, asset.rigs.size(), places != nullptr ? &place : nullptr, morphs));
    if (places != nullptr) places->rigs.push_back(std::move(place));
    if (models.size() + skeletons.size() > 1) rig.name = fmt::format("{}_{}", stem, skeletons[s].row);
    asset.rigs.push_back(std::move(rig));
  }
  ClipSet clips;
  const std::map<uint32_t, uint32_t> animationIds = readAnimationIds(arena, root, asset.provenance);
  for (uint32_t i = 0; i < arena.dictionary.size(); ++i) {
    if (arena.dictionary[i].typeId != kKeyframeAnim || ctx.options.skeletonsOnly) continue;
    auto obj = objectReader(arena, root, i, "KeyframeAnim");
    auto anim = obj ? readKeyframeAnim(arena, *obj, i, morphs, asset.provenance) : Result<Animation>(obj.error());
    if (!anim) {
      asset.provenance.warn("rw4-keyframe-anim", fmt::format("KeyframeAnim (row {}) is not read: {}", i, anim.error().describe()));
      continue;
    }
    if (auto id = animationIds.find(i); id != animationIds.end()) {  // the game's name for the clip
      anim->name = fmt::format("0x{:08X}", id->second);
      anim->extras["rw4"] = {{"animationId", id->second}, {"object", i}};
    }
    clips.animations.push_back(std::move(*anim));
    clips.animationItems.push_back(std::to_string(i));
  }
  mergeClipsOfOneId(clips);
  if (!clips.animations.empty()) {
    clips.item = "animations";
    clips.provenance.axes = asset.provenance.axes;
    clips.provenance.absorb(asset.provenance);
    asset.clips.push_back(std::move(clips));
  }
  // The arena's own textures (a texture arena converts to PNG files); a model arena's materials
  // name theirs in the texture arenas beside it (rw4_materials.md §5), bound by the pipeline.
  if (!ctx.options.skeletonsOnly) {
    RP_ASSIGN(asset.textures, readArenaTextures(arena, root, asset.provenance));
  }
  if (asset.rigs.empty() && asset.clips.empty() && asset.textures.empty() && !ctx.options.skeletonsOnly) {
    asset.provenance.warn("rw4-no-model", fmt::format("nothing read: the arena's {} objects include no RenderModelData (0x00EB0001), "
                                                      "Skeleton (0x00070002), KeyframeAnim (0x00070001), Texture (0x000200E8) or "
                                                      "Raster (0x00020003) that reads",
                                                      arena.dictionary.size()));
  }
  for (Rig& rig : asset.rigs) {
    Provenance own = std::move(rig.provenance);
    rig.provenance = Provenance{};
    rig.provenance.axes = asset.provenance.axes;
    rig.skeleton.inheritScale = inheritsScale(arena.platform->platform);
    rig.provenance.absorb(asset.provenance);
    rig.provenance.absorb(own);
  }
  return asset;
}

}  // namespace rigport::rw4
