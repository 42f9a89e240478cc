#include "formats/registry.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "formats/battleforge/battleforge.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/rw4/rw4.hpp"
#include "formats/sims3/sims3.hpp"
#include "formats/sluggers/sluggers.hpp"
#include "formats/gltf/gltf.hpp"

namespace rigport {
namespace {

namespace fs = std::filesystem;

std::string stemOf(const std::string& path) { return fs::path(path).stem().string(); }

// Formats whose files hold one rig: the whole file is item "0".
template <Result<Rig> (*Read)(std::span<const uint8_t>, ReadContext&)>
Result<Asset> readOneRig(const Source& source, ReadContext& ctx) {
  RP_ASSIGN(Rig rig, Read(source.bytes(), ctx));
  Asset asset;
  asset.provenance.format = rig.provenance.format;
  asset.provenance.axes = rig.provenance.axes;
  asset.rigs.push_back(std::move(rig));
  return asset;
}

Result<std::vector<ItemInfo>> listOneRig(const Source& source, ReadContext&) {
  return std::vector<ItemInfo>{ItemInfo{"0", "rig", stemOf(source.name()), source.bytes().size()}};
}

// Formats whose files hold one set of standalone clips.
template <Result<ClipSet> (*Read)(std::span<const uint8_t>, ReadContext&)>
Result<Asset> readOneClipSet(const Source& source, ReadContext& ctx) {
  RP_ASSIGN(ClipSet clips, Read(source.bytes(), ctx));
  Asset asset;
  asset.provenance.format = clips.provenance.format;
  asset.provenance.axes = clips.provenance.axes;
  clips.item = "0";
  asset.clips.push_back(std::move(clips));
  return asset;
}

// Formats whose reader gives the whole Asset from the bytes (texture dictionaries).
template <Result<Asset> (*Read)(std::span<const uint8_t>, ReadContext&)>
Result<Asset> readBytes(const Source& source, ReadContext& ctx) {
  return Read(source.bytes(), ctx);
}
// Formats whose file is one texture with no name inside (a DDS): it takes the file's stem, as the
// materials that name it do.
template <Result<Asset> (*Read)(std::span<const uint8_t>, ReadContext&)>
Result<Asset> readOneTexture(const Source& source, ReadContext& ctx) {
  RP_ASSIGN(Asset asset, Read(source.bytes(), ctx));
  for (Texture& t : asset.textures) t.name = stemOf(source.name());
  return asset;
}
template <Result<std::vector<ItemInfo>> (*List)(std::span<const uint8_t>, ReadContext&)>
Result<std::vector<ItemInfo>> listOneTexture(const Source& source, ReadContext& ctx) {
  RP_ASSIGN(std::vector<ItemInfo> items, List(source.bytes(), ctx));
  for (ItemInfo& item : items) item.name = stemOf(source.name());
  return items;
}
template <Result<std::vector<ItemInfo>> (*List)(std::span<const uint8_t>, ReadContext&)>
Result<std::vector<ItemInfo>> listBytes(const Source& source, ReadContext& ctx) {
  return List(source.bytes(), ctx);
}

// Clip packages list their clips. RenderWare's are read whole to list them: their headers are
// interleaved with the keys, and reading is as fast as walking (BENCHMARKS.md, IFP read). Only
// the names are listed: a reader that hands its animations over (ReadOptions::animationRead: the
// IFP's, the .anm's) lets each one's keys and file pages go as soon as it is decoded.
template <Result<ClipSet> (*Read)(std::span<const uint8_t>, ReadContext&)>
Result<std::vector<ItemInfo>> listClips(const Source& source, ReadContext& ctx) {
  ReadContext naming = ctx;
  naming.options.animationRead = [](Animation& decoded) {
    Animation named;
    named.name = std::move(decoded.name);
    decoded = std::move(named);
  };
  naming.releaseBytes = [&source](std::span<const uint8_t> bytes) { source.release(bytes); };
  RP_ASSIGN(const ClipSet clips, Read(source.bytes(), naming));
  std::vector<ItemInfo> items;
  items.reserve(clips.animations.size());
  for (size_t i = 0; i < clips.animations.size(); ++i) {
    items.push_back(ItemInfo{std::to_string(i), "clip", clips.animations[i].name, 0});
  }
  return items;
}

// Whether `rig` was read from a PC arena: the reader's extras.rw4.platform, which a glTF written by
// rigport keeps in its scene's extras, so a Spore model edited in Blender still says where it came from.
bool readFromPcArena(const Rig& rig) {
  if (!rig.extras.is_object()) return false;
  const auto rw4 = rig.extras.find("rw4");
  if (rw4 == rig.extras.end() || !rw4->is_object()) return false;
  const auto platform = rw4->find("platform");
  return platform != rw4->end() && *platform == rw4::platformInfo(rw4::Platform::Pc).name;
}

// What an arena holds: every mesh skinned, 4 influences, 16-bit indices; and the rule of the platform
// it is written for: a PC (Spore) arena's children do not inherit their parent's scale (rw4_arena.md §5),
// and its meshes keep their morph targets (a BlendShapeBuffer, docs/spore_meshes.md).
constexpr WriteLimits kArenaLimits{.maxInfluences = 4, .maxVertices = 0xFFFF, .asciiNames = true, .skinnedMeshesOnly = true};

WriteLimits arenaLimitsFor(const Rig& rig) {
  WriteLimits limits = kArenaLimits;
  limits.childrenInheritScale = !readFromPcArena(rig);
  limits.keepsMorphTargets = readFromPcArena(rig);
  return limits;
}

// The registry's writer for arenas, in the platform the rig was read from. A PC (Spore) rig goes back
// as Spore writes its models: a PC arena with Spore's own mesh objects, Skeleton and AnimationSkin
// (docs/spore_meshes.md). Any other rig: the PS3 .psg layout (rw4_arena.md §2.1) with float normals,
// UVs and weights and the materials' RenderMaterialData, so a glTF → .psg → glTF trip loses nothing
// (rw4::VertexLayout picks Skate's packed types). Clips are not written into either: the row carries no animations, so they go to --anim-out.
Result<std::vector<uint8_t>> writeArenaAsRead(const Rig& rig) {
  rw4::ArenaWriteOptions options;
  if (readFromPcArena(rig)) {
    options.platform = rw4::Platform::Pc;
    options.sporeMeshes = true;
    return rw4::writeArena(rig, options);
  }
  options.layout = rw4::VertexLayout{rw4::kF, rw4::kF, rw4::kF, rw4::kF, rw4::kUB256};
  options.materials = true;  // the texture GUIDs a model arena's materials were read with go back (docs/rw4_materials.md)
  return rw4::writeArena(rig, options);
}

constexpr std::array kFormats{
    FormatInfo{"renderware-dff", "RenderWare 3 clump (GTA III/VC/SA and other RW3 games)", ".dff",
               kCarriesSkeleton | kCarriesSkin | kCarriesMesh, "", renderware::probeDff, listOneRig,
               readOneRig<renderware::readDff>, renderware::writeDff, WriteLimits{.maxInfluences = 4, .maxJoints = 256, .maxVertices = 0xFFFF, .asciiNames = true, .jointsOnJoints = true},
               StandHints{"IDLE_stance", "ped.ifp", true}, kFloatPrecision, renderware::writeDffOnto},
    FormatInfo{"renderware-anm", "RenderWare Anim Animation chunks (0x1B), interpolator types 1 and 2", ".anm",
               kCarriesAnimations, "HAnim node position", renderware::probeAnm, listClips<renderware::readAnm>,
               readOneClipSet<renderware::readAnm>, renderware::writeAnm,
               WriteLimits{.noEvents = true, .noScalarChannels = true, .noScaleKeys = true, .tracksOnJointsOnly = true, .jointsOnJoints = true}},
    FormatInfo{"gta-ifp", "GTA animation package (ANPK for III/VC, ANP3 for SA)", ".ifp", kCarriesAnimations,
               "bone id, then name", renderware::probeIfp, listClips<renderware::readIfp>,
               readOneClipSet<renderware::readIfp>, nullptr, {}, {},
               kQuantisedKeyPrecision},
    // A TXD holds no rig: `convert` writes its textures as PNGs, and a DFF beside it (or --txd) takes
    // them into its glTF.
    FormatInfo{"renderware-txd", "RenderWare texture dictionary: PC D3D8/D3D9 rasters (DXT1/3/5, 8888, 888, 1555, 565, 4444, LUM8, PAL8, PAL4)",
               ".txd", kCarriesTextures | kCarriesContainer, "", renderware::probeTxd, listBytes<renderware::listTxd>,
               readBytes<renderware::readTxd>, nullptr},
    // Not kCarriesTextures: that marks a file a model beside it takes by its stem (and a folder walk
    // skips), while model arenas are .psg files too. A model arena's materials name their textures by
    // TOC GUID (docs/rw4_materials.md): 0x<guid>.psg and <stem>_Textures.psg beside it are read.
    FormatInfo{"rw4-arena", "RenderWare 4 arena: Skate 3 PS3 .psg (big-endian) and PC .rw4 skeletons, skinned meshes and textures",
               ".psg,.rw4", kCarriesSkeleton | kCarriesSkin | kCarriesMesh | kCarriesContainer, "", rw4::probeArena,
               rw4::listArena, rw4::readArena, writeArenaAsRead, kArenaLimits, {}, kFloatPrecision, rw4::writeArenaOnto, ".psg", "_Textures",
               arenaLimitsFor},
    FormatInfo{"sims3-clip", "The Sims 3 CLIP animation (0x6B20C4F3; s3pe's .animation)", ".clip,.animation", kCarriesAnimations,
               "FNV32 of the lower-cased bone name", sims3::probeClip, listClips<sims3::readClip>, readOneClipSet<sims3::readClip>,
               sims3::writeClip, WriteLimits{.noScaleKeys = true, .keyFrameRate = 30.0f, .oneClipPerFile = true}, {}, kQuantisedKeyPrecision},
    FormatInfo{"sims3-rig", "The Sims 3 RIG skeleton (0x8EAF13DE, new EA format; not Granny2)", ".rig,.grannyrig", kCarriesSkeleton, "",
               sims3::probeRig, listOneRig, readOneRig<sims3::readRig>, nullptr},  // sims3::writeRig: a RIG carries no animation or mesh to compare in `demo`; the package row writes one
    FormatInfo{"sims3-package", "The Sims 3 DBPF 2.0 package (RefPack) of CLIP and RIG resources", ".package",
               kCarriesSkeleton | kCarriesAnimations | kCarriesContainer, "FNV32 of the lower-cased bone name", sims3::probePackage,
               sims3::listPackage, sims3::readPackage, sims3::writePackage, WriteLimits{.noScaleKeys = true, .keyFrameRate = 30.0f}, {},
               kQuantisedKeyPrecision, sims3::writePackageOnto},
    FormatInfo{"battleforge-drs", "BattleForge model (CSkSkeleton, CSkSkinInfo, CDspMeshFile, CDspJointMap, CGeoMesh)", ".drs",
               kCarriesSkeleton | kCarriesSkin | kCarriesMesh, "", battleforge::probeDrs, listOneRig,
               readOneRig<battleforge::readDrs>, battleforge::writeDrs,
               WriteLimits{.maxInfluences = 4, .maxVertices = 0xFFFF, .uniqueNames = true, .skinnedMeshesOnly = true}, {}, kFloatPrecision, nullptr,
               ".dds"},  // battleforge_drs.md §7: "Names are DDS files in the model's folder
    FormatInfo{"battleforge-ska", "BattleForge animation (types 6 and 7, Hermite keys)", ".ska", kCarriesAnimations,
               "Bone.version (bone id)", battleforge::probeSka, listClips<battleforge::readSka>,
               readOneClipSet<battleforge::readSka>, battleforge::writeSka,
               WriteLimits{.noEvents = true, .noScalarChannels = true, .noScaleKeys = true, .hermiteKeys = true, .oneClipPerFile = true}},
    // One texture a file, named by the file (a BattleForge material names its maps' files): `convert`
    // writes it as a PNG, a DRS beside it takes it into its glTF. Not a container, unlike a TXD.
    FormatInfo{"dds", "DirectDraw Surface texture (BattleForge's _col/_nor/_par maps): DXT1/3/5, 8888, 888, 565, 1555, 4444, L8, with mips",
               ".dds", kCarriesTextures, "", battleforge::probeDds, listOneTexture<battleforge::listDds>,
               readOneTexture<battleforge::readDds>, nullptr},
    // No file name extension exists for a block carved out of dt_na.dat (sluggers.md §2); ".sluggers" is rigport's.
    FormatInfo{"sluggers-model", "Mario Super Sluggers (Wii) model block: GPL meshes, ACT bones, SKN skinning", ".sluggers",
               kCarriesSkeleton | kCarriesSkin | kCarriesMesh, "", sluggers::probeModel, listOneRig,
               readOneRig<sluggers::readModel>, [](const Rig& rig) { return sluggers::writeModel(rig); }, WriteLimits{0, 0, 0xFFFF}, {},
               kFloatPrecision, sluggers::writeModelOnto},
    FormatInfo{"sluggers-archive", "Mario Super Sluggers (Wii) archive of model blocks (ANM bank members listed, not read)",
               ".sluggers", kCarriesSkeleton | kCarriesSkin | kCarriesMesh | kCarriesContainer, "", sluggers::probeArchive,
               sluggers::listArchive, sluggers::readArchive, nullptr},
    FormatInfo{"gltf", "glTF 2.0 (.glb, .gltf + .bin): skinned rigs back from Blender, to convert --to a game format", ".glb,.gltf",
               kCarriesSkeleton | kCarriesSkin | kCarriesMesh | kCarriesAnimations, "", gltf_in::probeGlb, gltf_in::listGltf,
               gltf_in::readGltf, nullptr},
};

std::string lowerExtension(std::string_view path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

}  // namespace

bool namesFileOf(const FormatInfo& f, std::string_view path) {
  const std::string ext = lowerExtension(path);
  if (ext.empty()) return false;
  std::string_view list = f.extensions;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    if (list.substr(0, comma) == ext) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

namespace {

// Formats that store no clip names (.anm) leave them empty; the file's stem is what a user
// recognises in Blender or three.js: "walk" for walk.anm, "walk_0", "walk_1" for several clips.
void nameUnnamedAnimations(std::vector<Animation>& animations, const std::string& stem) {
  size_t unnamed = 0;
  for (const Animation& a : animations) unnamed += a.name.empty() ? 1 : 0;
  size_t next = 0;
  for (Animation& a : animations) {
    if (!a.name.empty()) continue;
    a.name = unnamed == 1 ? stem : stem + "_" + std::to_string(next++);
  }
}

void stamp(Provenance& p, const FormatInfo& format, const std::string& file) {
  if (p.format.empty()) p.format = std::string(format.name);
  p.file = file;
}

Error unknownFormat(const Source& source) {
  Error e = makeError(ErrorCode::Unsupported, "not a file of any format rigport reads (unknown magic bytes)");
  e.file = source.name();
  e.offset = 0;
  return e;
}

// Source::unreadableFrom(): the file shrank (or its storage failed) while it was read, so what
// was read past that offset is zeros, not the file. The read is refused whatever it made of them.
Error changedWhileRead(const Source& source, uint64_t offset) {
  Error e = makeError(ErrorCode::Io, "the file became shorter while it was read (another program truncated or rewrote it, or "
                                     "its storage failed); nothing read from it is used");
  e.file = source.name();
  e.offset = offset;
  return e;
}

Error withFile(Error e, const std::string& file) {
  if (e.file.empty()) e.file = file;
  return e;
}

Result<Asset> readNestedAsset(const Source& inner, ReadContext& ctx, std::string_view formatName) {
  const FormatInfo* format = nullptr;
  if (!formatName.empty()) {
    format = findFormat(formatName);
    if (format == nullptr) return makeError(ErrorCode::Usage, fmt::format("no format named '{}'", formatName));
  }
  return readAsset(inner, ctx, format);
}

}  // namespace

std::string carriesText(uint32_t carries) {
  static constexpr std::pair<uint32_t, const char*> kWords[] = {{kCarriesSkeleton, "skeleton"}, {kCarriesSkin, "skin"},
                                                                {kCarriesMesh, "meshes"},       {kCarriesAnimations, "animations"},
                                                                {kCarriesContainer, "container"}, {kCarriesTextures, "textures"}};
  std::string out;
  for (const auto& [bit, word] : kWords) {
    if ((carries & bit) == 0) continue;
    if (!out.empty()) out += ", ";
    out += word;
  }
  return out;
}

std::span<const FormatInfo> formats() { return kFormats; }

const FormatInfo* findFormat(std::string_view name) {
  for (const FormatInfo& f : kFormats)
    if (f.name == name) return &f;
  return nullptr;
}

const FormatInfo* detectFormat(std::span<const uint8_t> bytes, std::string_view path) {
  const std::string ext = lowerExtension(path);
  const FormatInfo* byMagic = nullptr;
  for (const FormatInfo& f : kFormats) {
    if (!f.probe(bytes)) continue;
    if (namesFileOf(f, path)) return &f;  // magic and extension agree
    if (byMagic == nullptr) byMagic = &f;
  }
  if (byMagic != nullptr) return byMagic;
  // No magic matched: a file named like one of ours goes to that reader, whose error will say
  // which field is wrong, rather than a bare "unknown format".
  for (const FormatInfo& f : kFormats)
    if (namesFileOf(f, path)) return &f;
  return nullptr;
}

namespace {

// Fills in what readAsset() promises: provenance format and file, names for the unnamed.
void stampAsset(Asset& asset, const FormatInfo& format, const std::string& file) {
  const std::string stem = stemOf(file);
  stamp(asset.provenance, format, file);
  for (Rig& rig : asset.rigs) {
    stamp(rig.provenance, format, file);
    if (rig.name.empty()) rig.name = stem;
    nameUnnamedAnimations(rig.animations, rig.name);
  }
  for (Texture& texture : asset.textures) texture.file = file;
  for (ClipSet& clips : asset.clips) {
    stamp(clips.provenance, format, file);
    if (clips.name.empty()) clips.name = stem;
    nameUnnamedAnimations(clips.animations, clips.name);
  }
}

// format.read() with the clip sets it hands to ReadOptions::clipsRead stamped as its Asset would be.
Result<Asset> readHanding(const Source& source, const ReadContext& ctx, const FormatInfo& format) {
  ReadContext handing = ctx;
  handing.options.clipsRead = [&source, &format, &given = ctx.options.clipsRead](Asset& sofar, size_t clipIndex, size_t clipCount) -> Status {
    // Nothing read past where the file was cut is handed on (changedWhileRead()).
    if (const auto lost = source.unreadableFrom()) return changedWhileRead(source, *lost);
    stampAsset(sofar, format, source.name());
    return given(sofar, clipIndex, clipCount);
  };
  return format.read(source, handing);
}

}  // namespace

Result<Asset> readAsset(const Source& source, ReadContext& ctx, const FormatInfo* format) {
  if (format == nullptr) format = detectFormat(source.bytes(), source.name());
  if (format == nullptr) return unknownFormat(source);
  auto read = ctx.options.clipsRead ? readHanding(source, ctx, *format) : format->read(source, ctx);
  if (const auto lost = source.unreadableFrom()) return changedWhileRead(source, *lost);
  if (!read) return withFile(read.error(), source.name());
  stampAsset(*read, *format, source.name());
  return read;
}

ReadContext fileReadContext(const std::string& path, const ReadOptions& options) {
  ReadContext ctx(options);
  const fs::path folder = fs::path(path).parent_path();
  ctx.openSibling = [folder, limit = options.memoryLimit](std::string_view relative) {
    return Source::open((folder / fs::path(relative)).string(), limit);
  };
  ctx.formatReader = readNestedAsset;
  return ctx;
}

Result<Asset> loadAsset(const std::string& path, const ReadOptions& options) {
  auto source = Source::open(path, options.memoryLimit);
  if (!source) return source.error();
  ReadContext ctx = fileReadContext(path, options);
  ctx.releaseBytes = [file = source->get()](std::span<const uint8_t> bytes) { file->release(bytes); };
  return readAsset(**source, ctx);
}

Result<std::vector<ItemInfo>> listItems(const std::string& path, const ReadOptions& options) {
  auto source = Source::open(path, options.memoryLimit);
  if (!source) return source.error();
  const FormatInfo* format = detectFormat((*source)->bytes(), path);
  if (format == nullptr) return unknownFormat(**source);
  ReadContext ctx = fileReadContext(path, options);
  auto items = format->list(**source, ctx);
  if (const auto lost = (*source)->unreadableFrom()) return changedWhileRead(**source, *lost);
  if (!items) return withFile(items.error(), path);
  return items;
}

}  // namespace rigport
