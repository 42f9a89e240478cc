// CSkSkeleton (battleforge_drs.md §3, §4): reading with every validation rule of seed 003's table,
// the bind pose derived from the BoneMatrix, and the inverse for the writer.
#pragma once

#include <cstdint>
#include <vector>

#include "core/byte_reader.hpp"
#include "core/byte_writer.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"
#include "formats/battleforge/drs_layout.hpp"

namespace rigport::battleforge {

// Reads and validates the payload: magic, version 3, matrix count = bone count, identifiers unique
// and 0..n-1, children and BoneVertex[0].parent naming existing bones, BoneVertex[1].parent = the
// bone's place in the Bone list, names unique and at most 63 characters. Each failure names the bone.
Result<CSkSkeleton> readSkeleton(ByteReader& r);
void writeSkeleton(ByteWriter& w, const CSkSkeleton& skeleton);

// The rig's bones, parents before children (identifier order when it already is one, as the add-on
// writes it); rigIndex[identifier] = the bone's index in `out`. Parents come from the Bone children
// lists, as the add-on's importer takes them; BoneVertex[0].parent disagreeing is a warning.
Status buildSkeleton(const CSkSkeleton& skeleton, Skeleton& out, std::vector<uint32_t>& rigIndex, Provenance& provenance);

// Each bone's Bone.version, the id a .ska binds by: its Bone::id, else the add-on's fallback, the sum
// of its name's character codes, moved up to the next free value where that is taken (names of one
// sum, as "spine_01" and "thigh_l" (735), would bind two bones' tracks to one). Bones with an id keep it.
std::vector<uint32_t> boneVersions(const Skeleton& skeleton);
// A CSkSkeleton of `skeleton` (identifiers = bone indices, versions = boneVersions), with BoneMatrix
// from the world bind pose.
CSkSkeleton skeletonFromRig(const Skeleton& skeleton);

}  // namespace rigport::battleforge
