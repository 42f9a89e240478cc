// `convert --to rw4-arena --base ORIGINAL` (issue 28): the rig written into a copy of the original
// arena. An arena holds much rigport does not model (materials, textures, the TOC, island bounds and
// draw parameters, the Skeleton's flags and ids, animations, unknown objects, the header, padding):
// every byte stays, except the values rigport models that the edit changed, each written where the
// reader read it and in the original's own form — a bone's inverse bind matrix in RenderModelData's
// m_pIBPMatrices (§4.1: the reader takes the bind pose from it alone), vertex positions, normals and
// first UVs in their VertexDescriptor's element types (§3.1), blend indices and weights through the
// mesh's remap table (§4.2). "Changed" is judged on values against what readArena reads of the
// original (the edit came back through glTF): within kRounding the original's bytes are kept, so an
// unedited round trip is byte-identical. The arena never changes size and no object moves: what
// would change a count or the structure is refused, naming the object and field.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "core/axes.hpp"
#include "core/byte_swap.hpp"
#include "formats/rw4/arena_onto.hpp"
#include "formats/rw4/axes.hpp"
#include "formats/rw4/rw4.hpp"

namespace rigport::rw4 {
namespace {

void putF32(std::vector<uint8_t>& file, size_t at, float v, Endian endian) {
  const auto u = std::bit_cast<uint32_t>(v);
  for (size_t k = 0; k < 4; ++k) file[at + k] = static_cast<uint8_t>(endian == Endian::Big ? u >> (24 - 8 * k) : u >> (8 * k));
}

// The original's rig the edit is written onto: the one the rig was read from (extras.rw4.object,
// the RenderModelData's or Skeleton's row, which a .glb rigport wrote keeps), else the only one.
Result<size_t> pickRig(const ArenaPlaces& places, const Rig& rig) {
  if (places.rigs.empty()) {
    return refuse("RenderModelData", "the arena holds no rig (no RenderModelData 0x00EB0001 or Skeleton 0x00070002) to write onto");
  }
  std::optional<uint32_t> object;
  if (const auto rw4 = rig.extras.find("rw4"); rig.extras.is_object() && rw4 != rig.extras.end() && rw4->is_object()) {
    if (const auto o = rw4->find("object"); o != rw4->end() && o->is_number_unsigned()) object = o->get<uint32_t>();
  }
  for (size_t r = 0; r < places.rigs.size(); ++r)
    if (object && places.rigs[r].row == *object) return r;
  if (places.rigs.size() == 1) return size_t{0};
  std::string rows;
  for (const RigPlace& p : places.rigs) rows += fmt::format("{}{}", rows.empty() ? "" : ", ", p.row);
  return refuse("RenderModelData", fmt::format("the arena holds {} rigs (rows {}), and the rig names none of them (extras.rw4.object); "
                                               "convert with --item ROW from the original",
                                               places.rigs.size(), rows));
}

std::string bonePath(const RigPlace& place, uint32_t fileBone) { return fmt::format("{}/bone[{}]", ownerPath(place), fileBone); }

// Names live in the model's name pool (RenderModelData, written by writeBoneNames) or as the
// Skeleton's hashes alone, parents in its Skeleton object (or nowhere, §9); a file bone's place is in
// the rig's owner, by its file index.
BoneStore boneStore(const RigPlace& place, const std::vector<uint32_t>& rigToFile) {
  BoneStore store{ownerPath(place) + (place.modelData ? "/m_iNumBones" : "/count"), "inverse bind matrices", "arena",
                  "its Skeleton object's parents, or none stored", {}, "/name",
                  place.modelData ? "" : "a Skeleton stores its bones' name hashes only, no names (the ids its KeyframeAnims bind by)"};
  for (const uint32_t fileBone : rigToFile) store.bonePaths.push_back(bonePath(place, fileBone));
  return store;
}

// Axes and scales within kRounding of their size, translations within `length`; the same bits
// (a NaN the original holds, kept) are near too.
bool near(const glm::mat4& a, const glm::mat4& b, float length) {
  if (std::memcmp(&a, &b, sizeof(glm::mat4)) == 0) return true;
  for (int c = 0; c < 4; ++c) {
    for (int k = 0; k < 4; ++k) {
      const float tolerance = c == 3 && k < 3 ? length : kRounding * std::max(1.0f, std::fabs(a[c][k]));
      if (!(std::fabs(a[c][k] - b[c][k]) <= tolerance)) return false;  // NaN: changed
    }
  }
  return true;
}

// Each bone whose inverse bind matrix the edit changed (the rig's own, else the inverse of its
// bind pose, as writeArena takes it): its floats in file order (§4.1, §5: glTF's column-major
// order), an AnimationSkin's padding words (the fourth of each column, not read) kept.
Status writeBones(OntoJob& job, const std::vector<uint32_t>& rigToFile) {
  const std::vector<glm::mat4> world = job.rig.skeleton.worldBindMatrices();
  for (size_t b = 0; b < job.base.skeleton.bones.size(); ++b) {
    const Bone& now = job.rig.skeleton.bones[job.rigBone[b]];
    const glm::mat4 was = job.base.skeleton.bones[b].inverseBind.value_or(glm::mat4(1.0f));
    const glm::mat4 ibm = now.inverseBind.value_or(glm::inverse(world[job.rigBone[b]]));
    if (near(was, ibm, job.length)) continue;
    if (job.place.inverseBindAt == 0) {
      return refuse(bonePath(job.place, rigToFile[b]), fmt::format("bone '{}' is posed anew, and the arena holds no AnimationSkin of its "
                                                                   "skeleton's bone count to keep the bind pose in; --base cannot add one",
                                                                   now.name));
    }
    const size_t at = job.place.inverseBindAt + size_t{rigToFile[b]} * model::kMatrixSize;
    for (int k = 0; k < 16; ++k) {
      if (!job.place.modelData && k % 4 == 3) continue;
      putF32(job.file, at + 4 * static_cast<size_t>(k), ibm[k / 4][k % 4], job.endian);
    }
  }
  return Ok{};
}

// A renamed bone of a RenderModelData: the new name over its slot in the pool, NUL-filled to the
// slot's end, nothing moved (model_data.hpp NameSlot). The Skeleton object's hashes stay.
Status writeBoneNames(OntoJob& job, const std::vector<uint32_t>& rigToFile) {
  for (size_t b = 0; b < job.base.skeleton.bones.size(); ++b) {
    const std::string& was = job.base.skeleton.bones[b].name;
    const std::string& now = job.rig.skeleton.bones[job.rigBone[b]].name;
    if (now == was) continue;
    const NameSlot& slot = job.place.nameSlots[rigToFile[b]];
    const bool printable = !now.empty() && std::all_of(now.begin(), now.end(), [](char c) {
      return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7F;
    });
    if (!printable || now.size() >= slot.room) {
      const std::string room = slot.room == 0 ? "the name pool holds no name of its own for this bone (it shares another's bytes, or was "
                                                "not read from the pool)"
                                              : fmt::format("its slot in the name pool has room for {} characters and the NUL", slot.room - 1);
      return refuse(bonePath(job.place, rigToFile[b]) + "/name",
                    fmt::format("bone '{}' is renamed '{}' ({} characters) in the rig; {}{}, and --base moves nothing", was, now, now.size(),
                                printable ? "" : "a RenderModelData name is printable ASCII; ", room));
    }
    std::copy(now.begin(), now.end(), job.file.begin() + static_cast<std::ptrdiff_t>(slot.at));
    std::fill_n(job.file.begin() + static_cast<std::ptrdiff_t>(slot.at + now.size()), slot.room - now.size(), uint8_t{0});
  }
  return Ok{};
}

}  // namespace

std::string ownerPath(const RigPlace& place) { return fmt::format("{}[{}]", place.modelData ? "RenderModelData" : "Skeleton", place.row); }

Result<std::vector<uint8_t>> writeArenaOnto(const Rig& input, const Source& source, ReadContext& ctx) {
  ArenaPlaces places;
  RP_ASSIGN(const Asset asset, readArena(source, ctx, &places));
  RP_ASSIGN(const size_t r, pickRig(places, input));
  const Rig& base = asset.rigs[r];
  const RigPlace& place = places.rigs[r];
  // In the platform's own axes (axes.hpp), as the reader gave the original.
  std::optional<Rig> converted;
  if (input.provenance.axes != base.provenance.axes) {
    converted = input;
    convertAxes(*converted, base.provenance.axes);
  }
  const Rig& rig = converted ? *converted : input;
  const std::vector<uint32_t> rigToFile = fileBones(place);
  RP_ASSIGN(std::vector<uint32_t> rigBone, matchBones(base.skeleton, rig.skeleton, boneStore(place, rigToFile)));
  const std::span<const uint8_t> bytes = source.bytes();
  OntoJob job{base, rig, place, platformInfo(places.platform).bigEndian ? Endian::Big : Endian::Little, std::move(rigBone),
              kRounding * largestCoordinate(base), std::vector<uint8_t>(bytes.begin(), bytes.end())};
  RP_CHECK(writeBones(job, rigToFile));
  if (place.modelData) RP_CHECK(writeBoneNames(job, rigToFile));  // a Skeleton's renames matchBones refused
  RP_CHECK(writeMeshesOnto(job));
  return std::move(job.file);
}

}  // namespace rigport::rw4
