#include "formats/battleforge/skeleton.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <glm/gtc/quaternion.hpp>

namespace rigport::battleforge {
namespace {

constexpr size_t kMinBoneRecord = 16;  // version, identifier, name_len, child_count

// "'Bip01_Head' (identifier 2, Bone list position 1)": how every skeleton error names its bone.
std::string boneLabel(const DrsBone& b, size_t listPos) {
  const std::string name = b.name.size() > 80 ? b.name.substr(0, 80) + "..." : b.name;
  return fmt::format("bone '{}' (identifier {}, Bone list position {})", name, b.identifier, listPos);
}

struct BoneRecordOffsets {
  size_t start = 0;       // relative to the skeleton reader
  size_t identifier = 0;
  size_t children = 0;
};

Result<BoneMatrix> readBoneMatrix(ByteReader& r) {
  BoneMatrix m;
  for (int k = 0; k < 4; ++k) {
    auto scope = r.scope(Field("bone_vertices", k));
    for (int c = 0; c < 3; ++c) { RP_ASSIGN(m[k].position[c], r.f32(Field("position", c))); }
    RP_ASSIGN(m[k].parent, r.s32("parent"));
  }
  return m;
}

Result<DrsBone> readBone(ByteReader& r, BoneRecordOffsets& at) {
  DrsBone b;
  at.start = r.position();
  RP_ASSIGN(b.version, r.u32("version"));
  at.identifier = r.position();
  RP_ASSIGN(b.identifier, r.s32("identifier"));
  RP_ASSIGN(const uint32_t nameLen, r.u32("name_len"));
  if (nameLen > kMaxBoneName) {
    return r.errorAt(r.position() - 4, ErrorCode::BadValue,
                     fmt::format("bone with identifier {}: name of {} characters (at most {})", b.identifier, nameLen, kMaxBoneName),
                     "name_len");
  }
  RP_ASSIGN(const auto name, r.bytes(nameLen, "name"));
  b.name.assign(reinterpret_cast<const char*>(name.data()), name.size());
  RP_ASSIGN(const uint32_t childCount, r.u32("child_count"));
  at.children = r.position();
  RP_ASSIGN(b.children, r.array<int32_t>(childCount, "children"));
  return b;
}

// Seed 003's validation table, after the counts (checked while reading). Identifiers first: every
// other rule indexes by them.
Status validateSkeleton(const ByteReader& r, const CSkSkeleton& s, const std::vector<BoneRecordOffsets>& at,
                        size_t matricesStart) {
  const size_t n = s.bones.size();
  std::vector<int64_t> listPosOf(n, -1);
  for (size_t i = 0; i < n; ++i) {
    const DrsBone& b = s.bones[i];
    const Field f("bones", static_cast<int64_t>(i));
    if (b.identifier < 0 || static_cast<size_t>(b.identifier) >= n) {
      return r.errorAt(at[i].identifier, ErrorCode::BadValue,
                       fmt::format("{}: identifier outside 0..{} (identifiers must be sequential)", boneLabel(b, i), n - 1), f);
    }
    if (listPosOf[b.identifier] >= 0) {
      return r.errorAt(at[i].identifier, ErrorCode::BadValue,
                       fmt::format("{}: identifier {} is also {}'s (identifiers must be unique)", boneLabel(b, i), b.identifier,
                                   boneLabel(s.bones[listPosOf[b.identifier]], listPosOf[b.identifier])),
                       f);
    }
    listPosOf[b.identifier] = static_cast<int64_t>(i);
  }
  std::unordered_map<std::string_view, size_t> byName;
  std::vector<int64_t> parentOf(n, -1);
  for (size_t i = 0; i < n; ++i) {
    const DrsBone& b = s.bones[i];
    const Field f("bones", static_cast<int64_t>(i));
    if (auto [it, fresh] = byName.emplace(b.name, i); !fresh) {
      return r.errorAt(at[i].start, ErrorCode::BadValue,
                       fmt::format("{}: name also used by {} (names must be unique)", boneLabel(b, i), boneLabel(s.bones[it->second], it->second)), f);
    }
    for (size_t k = 0; k < b.children.size(); ++k) {
      const int32_t c = b.children[k];
      const size_t off = at[i].children + 4 * k;
      if (c < 0 || static_cast<size_t>(c) >= n || c == b.identifier) {
        return r.errorAt(off, ErrorCode::BadValue, fmt::format("{}: child {} is not the identifier of another bone (0..{})", boneLabel(b, i), c, n - 1), f);
      }
      if (parentOf[c] >= 0) {
        return r.errorAt(off, ErrorCode::BadValue,
                         fmt::format("{}: child {} is already a child of identifier {} (a bone has one parent)", boneLabel(b, i), c, parentOf[c]), f);
      }
      parentOf[c] = b.identifier;
    }
    const BoneMatrix& m = s.matrices[b.identifier];
    const size_t mOff = matricesStart + kBoneMatrixSize * static_cast<size_t>(b.identifier);
    // §4 needs a rotation in v0..v2 and a finite v3; anything else has no bind pose to derive.
    bool finite = true;
    for (const BoneVertex& v : m) finite = finite && std::isfinite(v.position.x) && std::isfinite(v.position.y) && std::isfinite(v.position.z);
    if (!finite || std::fabs(glm::determinant(glm::mat3(m[0].position, m[1].position, m[2].position))) < 1e-6f) {
      return r.errorAt(mOff, ErrorCode::BadValue,
                       fmt::format("{}: BoneMatrix positions are not finite or v0..v2 are not the rows of a rotation", boneLabel(b, i)),
                       Field("bone_matrices", b.identifier));
    }
    if (m[0].parent < -1 || m[0].parent >= static_cast<int64_t>(n)) {
      return r.errorAt(mOff + 12, ErrorCode::BadValue,
                       fmt::format("{}: BoneVertex[0].parent {} is neither -1 nor a bone identifier (0..{})", boneLabel(b, i), m[0].parent, n - 1),
                       Field("bone_matrices", b.identifier));
    }
    if (m[1].parent != static_cast<int64_t>(i)) {
      return r.errorAt(mOff + 28, ErrorCode::BadValue,
                       fmt::format("{}: BoneVertex[1].parent {} is not the bone's Bone list position {}", boneLabel(b, i), m[1].parent, i),
                       Field("bone_matrices", b.identifier));
    }
  }
  // One parent each: a loop is a set of bones that never reaches a root.
  for (size_t id = 0; id < n; ++id) {
    int64_t p = parentOf[id];
    for (size_t steps = 0; p >= 0; ++steps, p = parentOf[p]) {
      if (steps > n) {
        const size_t i = static_cast<size_t>(listPosOf[id]);
        return r.errorAt(at[i].start, ErrorCode::BadValue, fmt::format("{}: its children links form a loop", boneLabel(s.bones[i], i)),
                         Field("bones", static_cast<int64_t>(i)));
      }
    }
  }
  return Ok{};
}

// The nearest rotation to an invertible matrix's rows, by Gram-Schmidt (a mirror's third axis flipped).
glm::mat3 orthonormalized(const glm::mat3& r) {
  const glm::vec3 x = glm::normalize(r[0]);
  const glm::vec3 y = glm::normalize(r[1] - glm::dot(r[1], x) * x);
  return glm::mat3(x, y, glm::cross(x, y));
}

glm::mat4 modelMatrix(const BoneMatrix& m, bool exact) {
  // §4: R's rows are v0..v2 (glm::mat3(v0, v1, v2) has them as columns, i.e. is Rᵀ); t = R·(−v3).
  const glm::mat3 rt(m[0].position, m[1].position, m[2].position);
  const glm::mat3 rot = exact ? glm::transpose(rt) : orthonormalized(glm::transpose(rt));
  glm::mat4 out(rot);
  out[3] = glm::vec4(rot * -m[3].position, 1.0f);
  return out;
}

// [R | t]⁻¹ = [Rᵀ | −Rᵀ·t] for the rotations modelMatrix() makes.
glm::mat4 rigidInverse(const glm::mat4& m) {
  const glm::mat3 rt = glm::transpose(glm::mat3(m));
  glm::mat4 out(rt);
  out[3] = glm::vec4(rt * -glm::vec3(m[3]), 1.0f);
  return out;
}

glm::mat4 inverseBindMatrix(const BoneMatrix& m) {
  // §4 derived: the four positions are the columns of the inverse bind matrix.
  glm::mat4 ibm(1.0f);
  for (int k = 0; k < 4; ++k) ibm[k] = glm::vec4(m[k].position, k == 3 ? 1.0f : 0.0f);
  return ibm;
}

bool orthonormal(const glm::mat3& r) {
  const glm::mat3 d = r * glm::transpose(r) - glm::mat3(1.0f);
  float worst = 0.0f;
  for (int c = 0; c < 3; ++c)
    for (int k = 0; k < 3; ++k) worst = std::max(worst, std::fabs(d[c][k]));
  return worst < 1e-3f && glm::determinant(r) > 0.0f;
}

// The add-on's fallback when a bone name is not in its table: the sum of the name's character codes.
uint32_t characterSum(const std::string& name) {
  uint32_t sum = 0;
  for (unsigned char c : name) sum += c;
  return sum;
}

}  // namespace

Result<CSkSkeleton> readSkeleton(ByteReader& r) {
  CSkSkeleton s;
  s.fileOffset = r.fileOffsetOfStart();
  RP_ASSIGN(const int32_t magic, r.s32("magic"));
  if (magic != kSkeletonMagic) {
    return r.errorAt(r.position() - 4, ErrorCode::BadValue, fmt::format("CSkSkeleton magic {}, expected {}", magic, kSkeletonMagic), "magic");
  }
  RP_ASSIGN(const int32_t version, r.s32("version"));
  if (version != kSkeletonVersion) {
    return r.errorAt(r.position() - 4, ErrorCode::Unsupported, fmt::format("CSkSkeleton version {} (only 3 is known)", version), "version");
  }
  RP_ASSIGN(const uint32_t matrixCount, r.u32("bone_matrix_count"));
  RP_ASSIGN(const size_t nm, r.count(matrixCount, kBoneMatrixSize, "bone_matrix_count"));
  const size_t matricesStart = r.position();
  s.matrices.reserve(nm);
  for (size_t i = 0; i < nm; ++i) {
    auto scope = r.scope(Field("bone_matrices", static_cast<int64_t>(i)));
    RP_ASSIGN(s.matrices.emplace_back(), readBoneMatrix(r));
  }
  RP_ASSIGN(const uint32_t boneCount, r.u32("bone_count"));
  if (boneCount != matrixCount) {
    return r.errorAt(r.position() - 4, ErrorCode::BadValue,
                     fmt::format("bone_count {} but bone_matrix_count {} (each bone needs its matrix)", boneCount, matrixCount), "bone_count");
  }
  RP_ASSIGN(const size_t nb, r.count(boneCount, kMinBoneRecord, "bone_count"));
  s.bones.reserve(nb);
  std::vector<BoneRecordOffsets> at(nb);
  for (size_t i = 0; i < nb; ++i) {
    auto scope = r.scope(Field("bones", static_cast<int64_t>(i)));
    RP_ASSIGN(s.bones.emplace_back(), readBone(r, at[i]));
  }
  for (size_t i = 0; i < 16; ++i) { RP_ASSIGN(s.superParent[i], r.f32(Field("super_parent", static_cast<int64_t>(i)))); }
  RP_CHECK(validateSkeleton(r, s, at, matricesStart));
  return s;
}

void writeSkeleton(ByteWriter& w, const CSkSkeleton& s) {
  w.s32(kSkeletonMagic);
  w.s32(kSkeletonVersion);
  w.u32(static_cast<uint32_t>(s.matrices.size()));
  for (const BoneMatrix& m : s.matrices) {
    for (const BoneVertex& v : m) {
      w.f32(v.position.x);
      w.f32(v.position.y);
      w.f32(v.position.z);
      w.s32(v.parent);
    }
  }
  w.u32(static_cast<uint32_t>(s.bones.size()));
  for (const DrsBone& b : s.bones) {
    w.u32(b.version);
    w.s32(b.identifier);
    w.u32(static_cast<uint32_t>(b.name.size()));
    w.raw({reinterpret_cast<const uint8_t*>(b.name.data()), b.name.size()});
    w.u32(static_cast<uint32_t>(b.children.size()));
    for (int32_t c : b.children) w.s32(c);
  }
  for (float f : s.superParent) w.f32(f);
}

Status buildSkeleton(const CSkSkeleton& s, Skeleton& out, std::vector<uint32_t>& rigIndex, Provenance& provenance) {
  const size_t n = s.bones.size();
  std::vector<const DrsBone*> byId(n);
  std::vector<size_t> listPos(n);
  std::vector<int32_t> parentOf(n, -1);
  for (size_t i = 0; i < n; ++i) {
    byId[s.bones[i].identifier] = &s.bones[i];
    listPos[s.bones[i].identifier] = i;
    for (int32_t c : s.bones[i].children) parentOf[c] = s.bones[i].identifier;
  }
  for (size_t i = 1; i < n; ++i) {
    if (s.bones[i].version < s.bones[i - 1].version) {
      provenance.warn("bone-order", fmt::format("CSkSkeleton Bone list is not sorted by version (position {} after {})", i, i - 1));
      break;
    }
  }
  for (size_t id = 0; id < n; ++id) {
    // The add-on's importer hangs a bone no children list names under bone 0.
    if (parentOf[id] < 0 && id != 0 && n > 0 && parentOf[0] < 0) {
      provenance.warn("orphan-bone", fmt::format("bone '{}' (identifier {}) is no bone's child; parented to identifier 0 as the add-on does",
                                                 byId[id]->name, id));
      parentOf[id] = 0;
    }
    if (s.matrices[id][0].parent != parentOf[id]) {
      provenance.warn("parent-mismatch", fmt::format("bone '{}' (identifier {}): BoneVertex[0].parent {} but the children lists give {}; "
                                                     "the children lists win",
                                                     byId[id]->name, id, s.matrices[id][0].parent, parentOf[id]));
    }
  }
  // Identifier order when parents precede children (the add-on numbers bones depth first), else depth first.
  std::vector<uint32_t> order;
  order.reserve(n);
  bool topological = true;
  for (size_t id = 0; id < n; ++id) topological = topological && parentOf[id] < static_cast<int32_t>(id);
  if (topological) {
    order.resize(n);
    std::iota(order.begin(), order.end(), 0u);
  } else {
    std::vector<std::vector<uint32_t>> kids(n);
    std::vector<uint32_t> stack;
    for (size_t id = 0; id < n; ++id) (parentOf[id] < 0 ? stack : kids[parentOf[id]]).push_back(static_cast<uint32_t>(id));
    std::reverse(stack.begin(), stack.end());
    while (!stack.empty()) {
      const uint32_t id = stack.back();
      stack.pop_back();
      order.push_back(id);
      stack.insert(stack.end(), kids[id].rbegin(), kids[id].rend());
    }
  }
  rigIndex.assign(n, 0);
  for (size_t i = 0; i < n; ++i) rigIndex[order[i]] = static_cast<uint32_t>(i);

  std::vector<glm::mat4> model(n);
  size_t skewed = 0;
  for (size_t id = 0; id < n; ++id) {
    const bool exact = orthonormal(glm::transpose(glm::mat3(s.matrices[id][0].position, s.matrices[id][1].position, s.matrices[id][2].position)));
    skewed += exact ? 0 : 1;
    model[id] = modelMatrix(s.matrices[id], exact);
  }
  out.bones.clear();
  out.bones.reserve(n);
  for (uint32_t id : order) {
    const DrsBone& b = *byId[id];
    const BoneMatrix& m = s.matrices[id];
    Bone bone;
    bone.name = b.name;
    bone.id = b.version;
    bone.parent = parentOf[id] < 0 ? -1 : static_cast<int32_t>(rigIndex[parentOf[id]]);
    // §4: the parent-relative rest transform is M_parent⁻¹·M_model.
    const glm::mat4 local = parentOf[id] < 0 ? model[id] : rigidInverse(model[parentOf[id]]) * model[id];
    if (!allFinite(local)) {
      Error e = makeError(ErrorCode::BadValue, fmt::format("bone '{}' (identifier {}): its BoneMatrix and its parent's give no finite local pose",
                                                           b.name, id));
      e.path = fmt::format("CSkSkeleton/bone_matrices[{}]", id);
      e.offset = s.fileOffset + 12 + kBoneMatrixSize * id;
      return e;
    }
    bone.translation = glm::vec3(local[3]);
    bone.rotation = glm::normalize(glm::quat_cast(glm::mat3(local)));
    bone.inverseBind = inverseBindMatrix(m);
    bone.extras = {{"battleforge",
                    {{"identifier", id},
                     {"version", b.version},
                     {"boneListPosition", listPos[id]},
                     {"boneVertexParents", {m[0].parent, m[1].parent, m[2].parent, m[3].parent}}}}};
    out.bones.push_back(std::move(bone));
  }
  if (skewed > 0) {
    provenance.warn("bone-matrix", fmt::format("{} BoneMatrix rotation(s) are not orthonormal; the local pose uses the nearest rotation, "
                                                 "the inverse bind matrix the file's values", skewed));
  }
  const std::array<float, 16> identity{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  out.extras = {{"battleforge", {{"superParent", s.superParent}}}};
  if (s.superParent != identity) {
    provenance.warn("super-parent", "CSkSkeleton super_parent is not the identity; kept in the skin's extras and not applied "
                                    "(no known tool applies it, battleforge_drs.md §12)");
  }
  return Ok{};
}

std::vector<uint32_t> boneVersions(const Skeleton& skeleton) {
  std::vector<uint32_t> versions(skeleton.bones.size());
  std::set<uint32_t> taken;
  for (const Bone& b : skeleton.bones)
    if (b.id) taken.insert(*b.id);
  for (size_t i = 0; i < versions.size(); ++i) {
    const Bone& b = skeleton.bones[i];
    if (b.id) {
      versions[i] = *b.id;
      continue;
    }
    uint32_t v = characterSum(b.name);
    while (!taken.insert(v).second) ++v;
    versions[i] = v;
  }
  return versions;
}

CSkSkeleton skeletonFromRig(const Skeleton& skeleton) {
  CSkSkeleton s;
  const size_t n = skeleton.bones.size();
  const std::vector<glm::mat4> world = skeleton.worldBindMatrices();
  std::vector<DrsBone> bones(n);
  const std::vector<uint32_t> versions = boneVersions(skeleton);
  std::vector<std::array<int32_t, 2>> extraParents(n, {0, 0});
  for (size_t i = 0; i < n; ++i) {
    const Bone& b = skeleton.bones[i];
    bones[i].identifier = static_cast<int32_t>(i);
    bones[i].name = b.name;
    bones[i].version = versions[i];
    if (b.parent >= 0) bones[b.parent].children.push_back(static_cast<int32_t>(i));
    const nlohmann::json* bf = b.extras.is_object() && b.extras.contains("battleforge") ? &b.extras["battleforge"] : nullptr;
    if (bf != nullptr && bf->contains("boneVertexParents") && (*bf)["boneVertexParents"].size() == 4) {
      extraParents[i] = {(*bf)["boneVertexParents"][2].get<int32_t>(), (*bf)["boneVertexParents"][3].get<int32_t>()};
    }
  }
  std::vector<size_t> byVersion(n);
  std::iota(byVersion.begin(), byVersion.end(), size_t{0});
  std::stable_sort(byVersion.begin(), byVersion.end(), [&](size_t a, size_t b) { return bones[a].version < bones[b].version; });
  std::vector<int32_t> listPos(n);
  for (size_t k = 0; k < n; ++k) listPos[byVersion[k]] = static_cast<int32_t>(k);

  s.matrices.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Bone& b = skeleton.bones[i];
    // The world bind pose: from the inverse bind matrix where there is one, with scale removed (§4
    // assumes an orthonormal R).
    const glm::mat4 w = b.inverseBind ? glm::inverse(*b.inverseBind) : world[i];
    const glm::mat3 rot = glm::mat3_cast(glm::normalize(glm::quat_cast(glm::mat3(w))));
    const glm::vec3 t(w[3]);
    const glm::mat3 rt = glm::transpose(rot);  // columns = rows of R
    BoneMatrix& m = s.matrices[i];
    // + 0 turns −0 into +0, so writing a read-back rig again gives the same bytes.
    m[0] = {rt[0] + 0.0f, b.parent};
    m[1] = {rt[1] + 0.0f, listPos[i]};
    m[2] = {rt[2] + 0.0f, extraParents[i][0]};
    m[3] = {-(rt * t) + 0.0f, extraParents[i][1]};
  }
  s.bones.reserve(n);
  for (size_t k : byVersion) s.bones.push_back(std::move(bones[k]));
  if (skeleton.extras.is_object() && skeleton.extras.contains("battleforge") && skeleton.extras["battleforge"].contains("superParent")) {
    const nlohmann::json& sp = skeleton.extras["battleforge"]["superParent"];
    for (size_t i = 0; i < 16 && i < sp.size(); ++i) s.superParent[i] = sp[i].get<float>();
  }
  return s;
}

}  // namespace rigport::battleforge
