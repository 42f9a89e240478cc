// The skin's three position-linked blocks: CSkSkinInfo (§5), parallel to the CGeoMesh (§6) vertices,
// and CDspJointMap (§8), the per-submesh local → global joint tables of the rev-12 weight streams.
#pragma once

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"
#include "core/error.hpp"
#include "formats/battleforge/drs_layout.hpp"

namespace rigport::battleforge {

Result<CSkSkinInfo> readSkinInfo(ByteReader& r);
void writeSkinInfo(ByteWriter& w, const CSkSkinInfo& skin);

Result<CGeoMesh> readGeoMesh(ByteReader& r);
void writeGeoMesh(ByteWriter& w, const CGeoMesh& mesh);

Result<CDspJointMap> readJointMap(ByteReader& r);
void writeJointMap(ByteWriter& w, const CDspJointMap& map);

}  // namespace rigport::battleforge
