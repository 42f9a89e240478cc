// DFF materials ↔ rig materials (format note renderware.md §1.2): the rig keeps one material per
// MaterialList entry of each atomic's geometry and groups a mesh's triangles by their material id.
// RenderWare stores colours as 8-bit sRGB; the rig holds linear colours (glTF's baseColorFactor).
#pragma once

#include <string>

#include "core/rig.hpp"
#include "formats/renderware/dff_layout.hpp"

namespace rigport::renderware {

Material toRigMaterial(const RwMaterial& m, const std::string& fallbackName);
RwMaterial toRwMaterial(const Material& m);

// Appends the geometry's materials to rig.materials and sets mesh.indices (reordered, stable)
// and mesh.parts from the triangles' material ids. A geometry without materials leaves the mesh
// without parts (the default material); an id beyond the list is read as 0, with a warning.
void addMeshMaterials(const RwGeometry& geo, size_t atomicIndex, Mesh& mesh, Rig& rig);

// The reverse for the writer: the materials a mesh's parts use (in order of first use) and each
// triangle's index into them. A mesh without parts gets none (the writer's white material).
void geometryMaterials(const Mesh& mesh, const Rig& rig, RwGeometry& geo);

}  // namespace rigport::renderware
