// Tangents for meshes drawn with a normal map (glTF 2.0 §3.7.2.1): a normalTexture on a primitive
// without TANGENT leaves the viewer to generate them, which the Khronos validator warns about
// (MESH_PRIMITIVE_GENERATED_TANGENT_SPACE). Per-vertex tangents are accumulated from each
// triangle's position and UV gradients (Lengyel's method; close to MikkTSpace on smooth meshes, not
// equal to it), made orthogonal to the normal; w gives the bitangent's side.
#include "export/gltf_document.hpp"

namespace rigport::gltf {
namespace {

bool drawsANormalMap(const Rig& rig, const Mesh& mesh) {
  for (const MeshPart& p : mesh.parts)
    if (p.material < rig.materials.size() && rig.materials[p.material].normalTexture) return true;
  return false;
}

// Any unit vector perpendicular to n, for a vertex whose UVs give no direction.
glm::vec3 perpendicular(const glm::vec3& n) {
  const glm::vec3 axis = std::abs(n.x) < 0.9f ? glm::vec3(1, 0, 0) : glm::vec3(0, 1, 0);
  const glm::vec3 t = glm::cross(n, axis);
  return glm::length(t) > 0.0f ? glm::normalize(t) : glm::vec3(1, 0, 0);
}

}  // namespace

std::optional<uint32_t> writeTangents(Document& doc, const Rig& rig, const Mesh& mesh, const std::vector<glm::vec2>& uvs,
                                      const std::vector<uint32_t>& indices) {
  const size_t nv = mesh.positions.size();
  if (mesh.normals.size() != nv || uvs.size() != nv || !drawsANormalMap(rig, mesh)) return std::nullopt;
  const auto position = [&](uint32_t v) { return mesh.positions[v]; };
  std::vector<glm::vec3> s(nv, glm::vec3(0.0f)), t(nv, glm::vec3(0.0f));
  for (size_t i = 0; i + 2 < indices.size(); i += 3) {
    const uint32_t a = indices[i], b = indices[i + 1], c = indices[i + 2];
    if (a >= nv || b >= nv || c >= nv) continue;
    const glm::vec3 e1 = position(b) - position(a), e2 = position(c) - position(a);
    const glm::vec2 d1 = uvs[b] - uvs[a], d2 = uvs[c] - uvs[a];
    const float det = d1.x * d2.y - d2.x * d1.y;
    if (!std::isfinite(det) || std::abs(det) < 1e-12f) continue;
    const glm::vec3 sdir = (e1 * d2.y - e2 * d1.y) / det, tdir = (e2 * d1.x - e1 * d2.x) / det;
    for (uint32_t v : {a, b, c}) {
      s[v] += sdir;
      t[v] += tdir;
    }
  }
  std::vector<glm::vec4> tangents(nv);
  for (size_t v = 0; v < nv; ++v) {
    glm::vec3 n = mesh.normals[v];
    n = glm::length(n) > 0.0f && std::isfinite(glm::length(n)) ? glm::normalize(n) : glm::vec3(0, 1, 0);
    const glm::vec3 along = s[v] - n * glm::dot(n, s[v]);
    const float length = glm::length(along);
    const glm::vec3 tangent = length > 1e-12f && std::isfinite(length) ? along / length : perpendicular(n);
    tangents[v] = glm::vec4(tangent, glm::dot(glm::cross(n, tangent), t[v]) < 0.0f ? -1.0f : 1.0f);
  }
  return doc.buffer.copyAccessor(tangents.data(), nv * sizeof(glm::vec4), nv, ComponentType::Float, "VEC4", ViewTarget::ArrayBuffer);
}

}  // namespace rigport::gltf
