// Meshes (format note gltf_ecosystem.md §1.2): POSITION, NORMAL, TEXCOORD_0 and every JOINTS_n /
// WEIGHTS_n set, in each component type the spec allows (weights as float or normalised unsigned
// byte/short; joints as unsigned byte/short). Triangle lists are read as they are, strips and fans
// are turned into lists, points are kept as vertices without triangles (what rigport's exporter
// writes for a mesh without faces); lines have no surface and are skipped with a warning.
// Primitives sharing one set of attribute accessors (rigport's and Blender's layout for one mesh
// with several materials) share their vertices; each primitive is one MeshPart. Morph targets
// (§1.2, Spec §3.7.2.2): POSITION and NORMAL deltas, the default `weights`, and the target names in
// `extras.targetNames` (Blender's and three.js's convention); TANGENT deltas are dropped with a warning.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "formats/gltf/gltf_accessor.hpp"
#include "formats/gltf/gltf_reader.hpp"
#include "core/vertex_lanes.hpp"

namespace rigport::gltf_in {
namespace {

constexpr int kTriangles = 4, kTriangleStrip = 5, kTriangleFan = 6, kPoints = 0;

const AccessorRules kPositionRules{{TINYGLTF_TYPE_VEC3},
                                   {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE,
                                    TINYGLTF_COMPONENT_TYPE_SHORT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT}};
const AccessorRules kNormalRules{{TINYGLTF_TYPE_VEC3}, {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_BYTE, TINYGLTF_COMPONENT_TYPE_SHORT}, true};
const AccessorRules kUvRules{{TINYGLTF_TYPE_VEC2},
                             {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE,
                              TINYGLTF_COMPONENT_TYPE_SHORT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT}};
const AccessorRules kJointRules{{TINYGLTF_TYPE_VEC4}, {TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT}};
const AccessorRules kWeightRules{{TINYGLTF_TYPE_VEC4},
                                 {TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT},
                                 true};
const AccessorRules kIndexRules{{TINYGLTF_TYPE_SCALAR},
                                {TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT}};

int attribute(const tinygltf::Primitive& p, const std::string& name) {
  const auto it = p.attributes.find(name);
  return it == p.attributes.end() ? -1 : it->second;
}

// Room for `extra` more elements, at least doubling as a vector grows by itself: one growth for a
// primitive's vertices instead of several, without a reallocation per primitive of a mesh of many.
template <class T, class Allocator>
void roomFor(std::vector<T, Allocator>& v, size_t extra) {
  if (v.capacity() - v.size() < extra) v.reserve(std::max(v.size() + extra, 2 * v.capacity()));
}

// The accessor's elements, decoded by `view`, appended to `out`: glm vectors of as many floats as
// the accessor's type has components (its AccessorRules allow that type only).
template <class Vector>
void appendDecoded(std::vector<Vector>& out, const AccessorView& view) {
  static_assert(std::is_trivially_copyable_v<Vector> && sizeof(Vector) % sizeof(float) == 0);
  const size_t first = out.size();
  roomFor(out, view.count);
  out.resize(first + view.count);
  view.floatsInto(reinterpret_cast<uint8_t*>(out.data() + first));  // a trivially copyable object's bytes
}

// Triangle list of a primitive's vertex order (indices or 0..n-1) in its mode; a list is `order`
// itself, whole triangles of it.
std::vector<uint32_t> triangles(std::vector<uint32_t> order, int mode) {
  if (mode == kTriangles) {
    order.resize(order.size() / 3 * 3);
    return order;
  }
  std::vector<uint32_t> out;
  for (size_t i = 2; i < order.size(); ++i) {
    if (mode == kTriangleStrip) {
      // Every other triangle of a strip is flipped back to the strip's winding (Spec §3.7.2.1).
      if (i % 2 == 0) out.insert(out.end(), {order[i - 2], order[i - 1], order[i]});
      else out.insert(out.end(), {order[i - 1], order[i - 2], order[i]});
    } else {
      out.insert(out.end(), {order[0], order[i - 1], order[i]});
    }
  }
  return out;
}

class MeshBuilder {
 public:
  MeshBuilder(const Document& doc, ReadContext& ctx, Rig& rig, std::map<int, uint32_t>& materials)
      : doc_(doc), ctx_(ctx), rig_(rig), materials_(materials) {}

  // `skin`: the primitive's joints map JOINTS_n values to nodes; `toBone`: the transform that takes
  // the vertices into the space the rig keeps them in (an unskinned mesh's node transforms up to the
  // bone it rides on; a skinned mesh's bind-shape transform, gltf_bind_shape.cpp).
  Status add(int meshIndex, const tinygltf::Skin* skin, const Layout& layout, const glm::mat4* toBone, Mesh& mesh, Provenance& warnings) {
    const tinygltf::Mesh& gm = doc_.model.meshes[static_cast<size_t>(meshIndex)];
    std::map<std::string, int> sharedAttributes;
    uint32_t base = 0;
    for (size_t p = 0; p < gm.primitives.size(); ++p) {
      const tinygltf::Primitive& prim = gm.primitives[p];
      const std::string at = fmt::format("meshes[{}].primitives[{}]", meshIndex, p);
      if (prim.mode != kTriangles && prim.mode != kTriangleStrip && prim.mode != kTriangleFan && prim.mode != kPoints) {
        warnings.warn("primitive-mode-skipped", fmt::format("{}.mode is {} (lines): no triangles to convert; the primitive was skipped", at, prim.mode));
        continue;
      }
      // Spec §3.7.2.2: every primitive of a mesh has the same number of targets, in one order.
      if (p == 0) {
        mesh.morphTargets.resize(prim.targets.size());
      } else if (prim.targets.size() != mesh.morphTargets.size()) {
        return fieldError(doc_, at + ".targets", ErrorCode::BadValue,
                          fmt::format("{} morph targets, but primitive 0 of the mesh has {}", prim.targets.size(), mesh.morphTargets.size()));
      }
      if (p == 0 || prim.attributes != sharedAttributes) {
        base = static_cast<uint32_t>(mesh.positions.size());
        RP_CHECK(addVertices(prim, at, skin, layout, toBone, mesh, warnings));
        RP_CHECK(addMorphDeltas(prim, at, toBone, mesh, warnings));
        sharedAttributes = prim.attributes;
      }
      const uint32_t count = static_cast<uint32_t>(mesh.positions.size()) - base;
      std::vector<uint32_t> order;
      if (prim.indices >= 0) {
        int comps = 0;
        RP_ASSIGN(order, readUints(doc_, ctx_, prim.indices, kIndexRules, at + ".indices", comps));
        // The largest first, in a pass that vectorises; the first index beyond only when there is one.
        uint32_t largest = 0;
        for (const uint32_t i : order) largest = std::max(largest, i);
        for (size_t i = 0; largest >= count && i < order.size(); ++i) {
          if (order[i] >= count) {
            return fieldError(doc_, fmt::format("accessors[{}]", prim.indices), ErrorCode::BadValue,
                              fmt::format("index {} is {}, but {} has {} vertices", i, order[i], at, count));
          }
        }
      } else if (prim.mode != kPoints) {
        order.resize(count);
        for (uint32_t i = 0; i < count; ++i) order[i] = i;
      }
      if (prim.mode == kPoints) continue;  // vertices without triangles
      std::vector<uint32_t> tris = triangles(std::move(order), prim.mode);
      if (tris.empty()) continue;
      if (!ctx_.budget().charge(tris.size() * sizeof(uint32_t))) return fieldError(doc_, at, ErrorCode::TooLarge, ctx_.budget().refusal(tris.size() * 4));
      MeshPart part;
      part.material = material(prim.material);
      part.firstIndex = static_cast<uint32_t>(mesh.indices.size());
      part.indexCount = static_cast<uint32_t>(tris.size());
      for (uint32_t& i : tris) i += base;
      if (mesh.indices.empty()) mesh.indices = std::move(tris);
      else mesh.indices.insert(mesh.indices.end(), tris.begin(), tris.end());
      mesh.parts.push_back(part);
    }
    for (MorphTarget& target : mesh.morphTargets) {
      if (!target.normalDeltas.empty()) target.normalDeltas.resize(mesh.positions.size(), glm::vec3(0.0f));
    }
    if (!mesh.morphTargets.empty()) takeMorphNamesAndWeights(meshIndex, mesh, warnings);
    return Ok{};
  }

 private:
  uint32_t material(int index) {
    if (auto it = materials_.find(index); it != materials_.end()) return it->second;
    Material out;
    if (index >= 0 && static_cast<size_t>(index) < doc_.model.materials.size()) {
      const tinygltf::Material& m = doc_.model.materials[static_cast<size_t>(index)];
      out.name = m.name;
      const auto& c = m.pbrMetallicRoughness.baseColorFactor;
      if (c.size() == 4) out.baseColor = glm::vec4(c[0], c[1], c[2], c[3]);
      nlohmann::json extras = extrasOf(m.extras_json_string);
      if (extras.is_object()) {
        if (auto t = extras.find("textures"); t != extras.end() && t->is_array()) {
          for (const auto& name : *t) {
            if (name.is_string()) out.textures.push_back(name.get<std::string>());
          }
          extras.erase(t);
        }
        if (!extras.empty()) out.extras = std::move(extras);
      }
      // A glTF from another tool (or Blender without custom properties) names no textures in extras:
      // the colour map's image name, as the game files name a texture, so writers keep the reference.
      if (out.textures.empty()) {
        if (std::string name = imageName(m.pbrMetallicRoughness.baseColorTexture.index); !name.empty()) out.textures.push_back(std::move(name));
      }
    } else {
      out.name = "default";
    }
    const auto slot = static_cast<uint32_t>(rig_.materials.size());
    rig_.materials.push_back(std::move(out));
    materials_[index] = slot;
    return slot;
  }

  // The name of texture `index`'s image without a picture extension ("skin_col.png" and
  // "textures/skin_col.png" name skin_col): its name, else its URI's file name; empty when neither.
  std::string imageName(int index) const {
    const auto& textures = doc_.model.textures;
    if (index < 0 || static_cast<size_t>(index) >= textures.size()) return {};
    const int source = textures[static_cast<size_t>(index)].source;
    if (source < 0 || static_cast<size_t>(source) >= doc_.model.images.size()) return {};
    const tinygltf::Image& image = doc_.model.images[static_cast<size_t>(source)];
    std::string name = image.name;
    if (name.empty() && !image.uri.empty() && image.uri.rfind("data:", 0) != 0) name = std::filesystem::path(image.uri).filename().string();
    std::string extension = std::filesystem::path(name).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const char* picture : {".png", ".jpg", ".jpeg", ".dds", ".tga", ".bmp"}) {
      if (extension == picture) return name.substr(0, name.size() - extension.size());
    }
    return name;
  }

  Status addVertices(const tinygltf::Primitive& prim, const std::string& at, const tinygltf::Skin* skin, const Layout& layout,
                     const glm::mat4* toBone, Mesh& mesh, Provenance& warnings) {
    // Blender 3.4 on Debian cannot write Draco either (gltf_ecosystem.md §2.3 trap 4); no decoder here.
    if (prim.extensions.count("KHR_draco_mesh_compression") != 0) {
      return fieldError(doc_, at + ".extensions", ErrorCode::Unsupported,
                        "KHR_draco_mesh_compression: Draco-compressed meshes are not read; export without compression");
    }
    const int positionAccessor = attribute(prim, "POSITION");
    if (positionAccessor < 0) return fieldError(doc_, at + ".attributes", ErrorCode::BadValue, "has no POSITION");
    // Each attribute is decoded straight into the mesh's array and changed there.
    RP_ASSIGN(const AccessorView pos, viewAccessor(doc_, ctx_, positionAccessor, kPositionRules, at + ".attributes.POSITION"));
    const size_t n = pos.count;
    const size_t first = mesh.positions.size();
    if (n > 0xFFFFFFFFu - first) return fieldError(doc_, at, ErrorCode::TooLarge, "more than 2^32 vertices in one mesh");
    const glm::mat3 normalMatrix = toBone ? glm::transpose(glm::inverse(glm::mat3(*toBone))) : glm::mat3(1.0f);
    appendDecoded(mesh.positions, pos);
    if (toBone) {
      size_t v = first;
#if RIGPORT_SSE2_LANES
      const lanes::AffineLanes bone(*toBone);  // the loop below, four vertices at a time, bit for bit
      v += lanes::inLanes(mesh.positions.data() + first, n, [&](__m128& x, __m128& y, __m128& z) { bone.point(x, y, z); });
#endif
      for (; v < first + n; ++v) mesh.positions[v] = glm::vec3(*toBone * glm::vec4(mesh.positions[v], 1.0f));
    }
    const auto sameCount = [&](int accessor, const std::string& name) -> Status {
      RP_ASSIGN(const size_t count, accessorCount(doc_, accessor, at + ".attributes." + name));
      if (count != n) {
        return fieldError(doc_, fmt::format("accessors[{}].count", accessor), ErrorCode::BadValue,
                          fmt::format("{} has {} elements, POSITION {} ({})", name, count, n, at));
      }
      return Ok{};
    };
    // A mesh keeps normals and UVs only when every primitive has them (one per vertex, rig.hpp).
    if (const int a = attribute(prim, "NORMAL"); a >= 0 && mesh.normals.size() == first) {
      RP_CHECK(sameCount(a, "NORMAL"));
      RP_ASSIGN(const AccessorView nrm, viewAccessor(doc_, ctx_, a, kNormalRules, at + ".attributes.NORMAL"));
      appendDecoded(mesh.normals, nrm);
      size_t v = first;
#if RIGPORT_SSE2_LANES
      // The loop below, four normals at a time, bit for bit: glm's length is sqrt((x·x + y·y) + z·z),
      // which _mm_sqrt_ps rounds as std::sqrt does, and the division is each component's.
      const lanes::LinearLanes turn(normalMatrix);
      const bool measured = toBone != nullptr;
      v += lanes::inLanes(mesh.normals.data() + first, n, [&](__m128& x, __m128& y, __m128& z) {
        turn.apply(x, y, z);
        if (!measured) return;
        const __m128 length = _mm_sqrt_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_mul_ps(z, z)));
        const __m128 offUnit = _mm_and_ps(_mm_castsi128_ps(_mm_set1_epi32(0x7FFFFFFF)), _mm_sub_ps(length, _mm_set1_ps(1.0f)));
        const __m128 divide = _mm_and_ps(_mm_cmpgt_ps(length, _mm_setzero_ps()), _mm_cmpgt_ps(offUnit, _mm_set1_ps(1e-6f)));
        x = _mm_or_ps(_mm_and_ps(divide, _mm_div_ps(x, length)), _mm_andnot_ps(divide, x));
        y = _mm_or_ps(_mm_and_ps(divide, _mm_div_ps(y, length)), _mm_andnot_ps(divide, y));
        z = _mm_or_ps(_mm_and_ps(divide, _mm_div_ps(z, length)), _mm_andnot_ps(divide, z));
      });
#endif
      for (; v < first + n; ++v) {
        // Through the matrix even when it is the identity, as always: that turns a -0 into +0.
        const glm::vec3 normal = normalMatrix * mesh.normals[v];
        // A scaling transform leaves them unit no longer (an FBX conversion's ×100 makes them 0.01 long).
        const float length = toBone != nullptr ? glm::length(normal) : 1.0f;
        mesh.normals[v] = length > 0.0f && std::fabs(length - 1.0f) > 1e-6f ? normal / length : normal;
      }
    } else {
      mesh.normals.clear();
    }
    if (const int a = attribute(prim, "TEXCOORD_0"); a >= 0 && mesh.uvs.size() == first) {
      RP_CHECK(sameCount(a, "TEXCOORD_0"));
      RP_ASSIGN(const AccessorView uv, viewAccessor(doc_, ctx_, a, kUvRules, at + ".attributes.TEXCOORD_0"));
      appendDecoded(mesh.uvs, uv);
    } else {
      mesh.uvs.clear();
    }
    if (skin == nullptr) return Ok{};
    if (mesh.influenceOffsets.empty()) mesh.influenceOffsets.push_back(0);
    std::vector<AccessorView> joints, weights;
    for (int set = 0;; ++set) {
      const int j = attribute(prim, fmt::format("JOINTS_{}", set));
      const int w = attribute(prim, fmt::format("WEIGHTS_{}", set));
      if (j < 0 && w < 0) break;
      if (j < 0 || w < 0) {
        return fieldError(doc_, at + ".attributes", ErrorCode::BadValue, fmt::format("has {}_{} without {}_{}", j < 0 ? "WEIGHTS" : "JOINTS", set,
                                                                                      j < 0 ? "JOINTS" : "WEIGHTS", set));
      }
      RP_CHECK(sameCount(j, fmt::format("JOINTS_{}", set)));
      RP_CHECK(sameCount(w, fmt::format("WEIGHTS_{}", set)));
      RP_ASSIGN(joints.emplace_back(), viewAccessor(doc_, ctx_, j, kJointRules, fmt::format("{}.attributes.JOINTS_{}", at, set)));
      RP_ASSIGN(weights.emplace_back(), viewAccessor(doc_, ctx_, w, kWeightRules, fmt::format("{}.attributes.WEIGHTS_{}", at, set)));
    }
    if (!ctx_.budget().charge(n * joints.size() * 4 * sizeof(Influence))) {
      return fieldError(doc_, at, ErrorCode::TooLarge, ctx_.budget().refusal(n * joints.size() * 4 * sizeof(Influence)));
    }
    // glTF requires each vertex's weights to sum to 1 and a reader must not fix them; rigport keeps
    // them as stored, but its glTF export scales them to sum 1, which moves such a vertex: say so.
    // 0.01 leaves the rounding of 8-bit normalised weights alone.
    roomFor(mesh.influences, n * joints.size() * 4);  // charged above; vertices' zero weights leave some unused
    roomFor(mesh.influenceOffsets, n);
    // Each skin joint's bone, once rather than per weight. A folded compensation joint
    // (gltf_skeleton.cpp) weighs for the bone it carries.
    std::vector<int> boneOfJoint(skin->joints.size());
    for (size_t j = 0; j < boneOfJoint.size(); ++j) {
      const size_t node = static_cast<size_t>(skin->joints[j]);
      boneOfJoint[j] = layout.boneOfNode[node] >= 0 ? layout.boneOfNode[node] : layout.translationOfNode[node];
    }
    size_t offSum = 0, worstVertex = 0;
    float worstSum = 1.0f;
    // One set (every exporter's four weights a vertex): the loop below with the component types
    // chosen once and the influences written in place, not pushed one by one.
    if (joints.size() == 1) {
      const auto one = [&](auto weightType, auto jointType) {
        return addOneSet<decltype(weightType), decltype(jointType)>(weights[0], joints[0], n, boneOfJoint, at, skin->joints.size(), mesh, offSum,
                                                                    worstVertex, worstSum);
      };
      Status added = Ok{};
      const bool shortJoints = joints[0].componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
      switch (weights[0].componentType) {
        case TINYGLTF_COMPONENT_TYPE_FLOAT: added = shortJoints ? one(float{}, uint16_t{}) : one(float{}, uint8_t{}); break;
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: added = shortJoints ? one(uint8_t{}, uint16_t{}) : one(uint8_t{}, uint8_t{}); break;
        default: added = shortJoints ? one(uint16_t{}, uint16_t{}) : one(uint16_t{}, uint8_t{}); break;
      }
      RP_CHECK(added);
      warnWeightSums(warnings, at, offSum, worstVertex, worstSum);
      return Ok{};
    }
    for (size_t v = 0; v < n; ++v) {
      float sum = 0.0f;
      for (size_t s = 0; s < joints.size(); ++s) {
        for (int c = 0; c < 4; ++c) {
          const float weight = weights[s].floatAt(v, c);
          if (weight == 0.0f) continue;
          const uint32_t joint = joints[s].uintAt(v, c);
          if (joint >= boneOfJoint.size()) {
            return fieldError(doc_, fmt::format("{}.attributes.JOINTS_{}", at, s), ErrorCode::BadValue,
                              fmt::format("vertex {} names joint {}, but the skin has {}", v, joint, skin->joints.size()));
          }
          mesh.influences.push_back(Influence{static_cast<uint32_t>(boneOfJoint[joint]), weight});
          sum += weight;
        }
      }
      mesh.influenceOffsets.push_back(static_cast<uint32_t>(mesh.influences.size()));
      if (std::fabs(sum - 1.0f) > 0.01f && (offSum++ == 0 || std::fabs(sum - 1.0f) > std::fabs(worstSum - 1.0f))) worstVertex = v, worstSum = sum;
    }
    warnWeightSums(warnings, at, offSum, worstVertex, worstSum);
    return Ok{};
  }

  static void warnWeightSums(Provenance& warnings, const std::string& at, size_t offSum, size_t worstVertex, float worstSum) {
    if (offSum > 0) {
      warnings.warn("weights-not-normalised", fmt::format("{}: {} vertices' weights do not sum to 1 (vertex {}: {:.4g}); kept as stored, and "
                                                          "scaled to sum 1 by rigport's glTF export, which moves those vertices",
                                                          at, offSum, worstVertex, worstSum));
    }
  }

  // addVertices()' loop over the vertices' influences for a primitive of one JOINTS_0/WEIGHTS_0 set
  // whose components are W and J: the same influences, sums and error, with each value read as
  // AccessorView::floatAt()/uintAt() read it, without asking its type each time.
  template <class W, class J>
  Status addOneSet(const AccessorView& weights, const AccessorView& joints, size_t n, const std::vector<int>& boneOfJoint, const std::string& at,
                   size_t skinJoints, Mesh& mesh, size_t& offSum, size_t& worstVertex, float& worstSum) {
    const size_t first = mesh.influences.size();
    mesh.influences.resize(first + 4 * n);  // room made and charged by the caller; unwritten until here
    Influence* out = mesh.influences.data() + first;
    const size_t offsetsAt = mesh.influenceOffsets.size();
    mesh.influenceOffsets.resize(offsetsAt + n);
    uint32_t* offsets = mesh.influenceOffsets.data() + offsetsAt;
    const uint32_t jointCount = static_cast<uint32_t>(boneOfJoint.size());
    const bool normalized = weights.normalized;
    for (size_t v = 0; v < n; ++v) {
      const uint8_t* w = weights.first + v * weights.stride;
      const uint8_t* j = joints.first + v * joints.stride;
      float sum = 0.0f;
      if constexpr (std::is_same_v<W, float>) {
        // The usual vertex: four weights, none 0, on joints the skin has: the loop below, unrolled.
        float w4[4];
        J j4[4];
        std::memcpy(w4, w, sizeof w4);
        std::memcpy(j4, j, sizeof j4);
        if ((w4[0] != 0.0f) & (w4[1] != 0.0f) & (w4[2] != 0.0f) & (w4[3] != 0.0f) & (j4[0] < jointCount) & (j4[1] < jointCount) &
            (j4[2] < jointCount) & (j4[3] < jointCount)) {
          for (int c = 0; c < 4; ++c) {
            out[c] = Influence{static_cast<uint32_t>(boneOfJoint[j4[c]]), w4[c]};
            sum += w4[c];
          }
          out += 4;
          offsets[v] = static_cast<uint32_t>(out - mesh.influences.data());
          if (std::fabs(sum - 1.0f) > 0.01f && (offSum++ == 0 || std::fabs(sum - 1.0f) > std::fabs(worstSum - 1.0f))) worstVertex = v, worstSum = sum;
          continue;
        }
      }
      for (int c = 0; c < 4; ++c) {
        W stored;
        std::memcpy(&stored, w + c * sizeof(W), sizeof(W));  // little-endian, as AccessorView's loads
        float weight;
        if constexpr (std::is_same_v<W, float>) weight = stored;
        else weight = normalized ? quant::unormToFloat(stored, 8 * sizeof(W)) : static_cast<float>(stored);
        if (weight == 0.0f) continue;
        J index;
        std::memcpy(&index, j + c * sizeof(J), sizeof(J));
        const uint32_t joint = index;
        if (joint >= jointCount) {
          return fieldError(doc_, fmt::format("{}.attributes.JOINTS_{}", at, 0), ErrorCode::BadValue,
                            fmt::format("vertex {} names joint {}, but the skin has {}", v, joint, skinJoints));
        }
        *out++ = Influence{static_cast<uint32_t>(boneOfJoint[joint]), weight};
        sum += weight;
      }
      offsets[v] = static_cast<uint32_t>(out - mesh.influences.data());
      if (std::fabs(sum - 1.0f) > 0.01f && (offSum++ == 0 || std::fabs(sum - 1.0f) > std::fabs(worstSum - 1.0f))) worstVertex = v, worstSum = sum;
    }
    mesh.influences.resize(static_cast<size_t>(out - mesh.influences.data()));
    return Ok{};
  }

  // Each target's deltas for the vertices addVertices() just added (a target without POSITION
  // moves none of them), in the rig's space as `toBone` takes the vertices there: its linear part
  // alone, since deltas are vectors. Normal deltas turn with the normals, which addVertices() makes
  // unit again: the normal matrix less its uniform scale (an FBX conversion's ×100 keeps them).
  Status addMorphDeltas(const tinygltf::Primitive& prim, const std::string& at, const glm::mat4* toBone, Mesh& mesh, Provenance& warnings) {
    const glm::mat3 linear = toBone ? glm::mat3(*toBone) : glm::mat3(1.0f);
    glm::mat3 normalMatrix = glm::transpose(glm::inverse(linear));
    if (const float scale = std::cbrt(std::fabs(glm::determinant(normalMatrix))); scale > 0.0f && std::isfinite(scale)) normalMatrix /= scale;
    const size_t n = mesh.positions.size();
    for (size_t t = 0; t < prim.targets.size(); ++t) {
      MorphTarget& target = mesh.morphTargets[t];
      const std::string tat = fmt::format("{}.targets[{}]", at, t);
      const size_t start = target.positionDeltas.size();
      for (const auto& [name, accessor] : prim.targets[t]) {
        if (name != "POSITION" && name != "NORMAL") {
          warnings.warn("morph-attribute-dropped", fmt::format("{}.{}: a {} morph target is not read (rigport keeps POSITION and NORMAL deltas)", tat, name, name));
          continue;
        }
        int comps = 0;
        RP_ASSIGN(const size_t count, accessorCount(doc_, accessor, tat + "." + name));
        if (count != n - start) {
          return fieldError(doc_, fmt::format("accessors[{}].count", accessor), ErrorCode::BadValue,
                            fmt::format("{} has {} elements, POSITION {} ({})", name, count, n - start, tat));
        }
        RP_ASSIGN(const std::vector<float> d, readFloats(doc_, ctx_, accessor, name == "POSITION" ? kPositionRules : kNormalRules, tat + "." + name, comps));
        std::vector<glm::vec3>& deltas = name == "POSITION" ? target.positionDeltas : target.normalDeltas;
        deltas.resize(start, glm::vec3(0.0f));  // normal deltas of earlier primitives that had none
        for (size_t v = 0; v < count; ++v) deltas.push_back((name == "POSITION" ? linear : normalMatrix) * glm::vec3(d[v * 3], d[v * 3 + 1], d[v * 3 + 2]));
      }
      target.positionDeltas.resize(n, glm::vec3(0.0f));
    }
    return Ok{};
  }

  // The mesh's default weights (mesh.weights, zero when absent) and its targets' names from
  // extras.targetNames, where they are given and as many as the targets.
  void takeMorphNamesAndWeights(int meshIndex, Mesh& mesh, Provenance& warnings) {
    const tinygltf::Mesh& gm = doc_.model.meshes[static_cast<size_t>(meshIndex)];
    const size_t targets = mesh.morphTargets.size();
    if (!gm.weights.empty()) {
      if (gm.weights.size() == targets) {
        mesh.morphWeights.assign(gm.weights.begin(), gm.weights.end());
      } else {
        warnings.warn("morph-weights-ignored", fmt::format("meshes[{}].weights: {} weights for {} morph targets; read as 0", meshIndex, gm.weights.size(), targets));
      }
    }
    const nlohmann::json extras = extrasOf(gm.extras_json_string);
    if (!extras.is_object()) return;
    const auto names = extras.find("targetNames");
    if (names == extras.end() || !names->is_array()) return;
    for (size_t t = 0; t < targets && t < names->size(); ++t) {
      if ((*names)[t].is_string()) mesh.morphTargets[t].name = (*names)[t].get<std::string>();
    }
  }

  const Document& doc_;
  ReadContext& ctx_;
  Rig& rig_;
  std::map<int, uint32_t>& materials_;
};

}  // namespace

Status readMeshes(const Document& doc, ReadContext& ctx, Layout& layout, std::vector<Rig>& rigs, Provenance& file) {
  const auto& m = doc.model;
  layout.meshOfNode.assign(m.nodes.size(), {-1, -1});
  std::vector<std::map<int, uint32_t>> materials(rigs.size());
  for (size_t n = 0; n < m.nodes.size(); ++n) {
    const tinygltf::Node& node = m.nodes[n];
    if (node.mesh < 0) continue;
    const std::string at = fmt::format("nodes[{}]", n);
    if (static_cast<size_t>(node.mesh) >= m.meshes.size()) {
      return fieldError(doc, at + ".mesh", ErrorCode::BadValue, fmt::format("names mesh {}, but the file has {}", node.mesh, m.meshes.size()));
    }
    Mesh mesh;
    mesh.name = m.meshes[static_cast<size_t>(node.mesh)].name.empty() ? node.name : m.meshes[static_cast<size_t>(node.mesh)].name;
    size_t rig = 0;
    const tinygltf::Skin* skin = nullptr;
    std::optional<glm::mat4> toBone;
    if (node.skin >= 0) {
      if (static_cast<size_t>(node.skin) >= m.skins.size()) {
        return fieldError(doc, at + ".skin", ErrorCode::BadValue, fmt::format("names skin {}, but the file has {}", node.skin, m.skins.size()));
      }
      // Spec §3.7.3.3: the skinned mesh node's own transform is ignored; its vertices are in the
      // space the inverse bind matrices start from, less the bind shape they shared.
      skin = &m.skins[static_cast<size_t>(node.skin)];
      rig = static_cast<size_t>(layout.rigOfSkin[static_cast<size_t>(node.skin)]);
      toBone = layout.bindShape[static_cast<size_t>(node.skin)];
    } else {
      // Unskinned: it rides on the nearest bone above it, or on its own node when that is a bone
      // (joints hang below it); its own transforms up to that bone are baked into its vertices.
      const bool isBone = layout.boneOfNode[n] >= 0;
      glm::mat4 local = isBone ? glm::mat4(1.0f) : nodeMatrix(node);
      int p = isBone ? static_cast<int>(n) : layout.parent[n];
      while (p >= 0 && layout.boneOfNode[static_cast<size_t>(p)] < 0) {
        local = nodeMatrix(m.nodes[static_cast<size_t>(p)]) * local;
        p = layout.parent[static_cast<size_t>(p)];
      }
      if (p < 0) {
        file.warn("mesh-not-on-skeleton", fmt::format("{} ('{}'): a mesh neither skinned nor under a bone; not part of any rig, skipped", at, node.name));
        continue;
      }
      rig = static_cast<size_t>(layout.rigOfNode[static_cast<size_t>(p)]);
      mesh.attachBone = layout.boneOfNode[static_cast<size_t>(p)];
      toBone = local;
    }
    MeshBuilder builder(doc, ctx, rigs[rig], materials[rig]);
    RP_CHECK(builder.add(node.mesh, skin, layout, toBone ? &*toBone : nullptr, mesh, rigs[rig].provenance));
    // Spec §3.7.2.2: the node's weights, where it gives them, stand for its mesh's.
    if (!node.weights.empty() && node.weights.size() == mesh.morphTargets.size()) mesh.morphWeights.assign(node.weights.begin(), node.weights.end());
    layout.meshOfNode[n] = {static_cast<int>(rig), static_cast<int>(rigs[rig].meshes.size())};
    rigs[rig].meshes.push_back(std::move(mesh));
  }
  return Ok{};
}

}  // namespace rigport::gltf_in
