// The synthetic inputs of the benchmarks, written by rigport's own writers, shared by the benchmark
// programs and by `bench_inputs DIR`, which writes them as files for the whole-process scripts
// (scripts/bench_process.sh). Each is built once per process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/rig.hpp"

namespace rigport::bench {

// Issue 11's DFF: 4 atomics x 32,768 vertices (RW triangles index at most 65,535 vertices per
// geometry), 4 influences each, 64 bones in a binary tree, normals and UVs; about 12 MB.
const std::vector<uint8_t>& skinnedDff();
// The same with `atomics` atomics (2.37 MB each), for the size-scaling rows: not cached.
Result<std::vector<uint8_t>> skinnedDffOf(int atomics);

// A PS3 .psg: 4 RenderOptiMeshData x 50,000 vertices = 200,000, 4 influences each, 64 bones, the
// writer's default (Skate-like) layout: F x3 positions, CMP normals, SF x2 UVs, UB x4 weights,
// UB256 x4 indices, 28 bytes a vertex, big-endian; about 6.8 MB.
const std::vector<uint8_t>& skinnedArena();

// A Mario Super Sluggers model block: 100,000 vertices = a skinned submesh of 60,000 (runs of 8
// vertices with 1-4 influences, so SK1, SK2 and SKAcc all occur) and four rigid submeshes of
// 10,000 on four bones, 64 bones; about 6.2 MB.
const std::vector<uint8_t>& sluggersBlock();

// A GTA ANPK package the size of a large game package: 1,000 animations x 32 tracks x 30 keys,
// alternating KRT0 (rotation + translation) and KR00 (rotation) tracks, 44-byte ANIM records;
// about 27 MB. ifpSkeleton() is the 32-bone chain it animates (bone_<t>, HAnim id t).
const std::vector<uint8_t>& ifpPackage();
rigport::Rig ifpSkeleton();
// ifpSkeleton() as a DFF (no geometry), the `--skeleton` of the IFP's whole-process conversion.
const std::vector<uint8_t>& ifpSkeletonDff();

// `tracks` bones b__bone<t>__, each with a translation and a rotation of `keys` keys at 30 Hz.
rigport::Animation sims3Animation(const std::string& name, int tracks, int keys);
// Sims 3 CLIPs by rigport's writer: 50 tracks x 1,000 frames x (0x12 translation + 0x14 rotation)
// = 100,000 keys, about 1 MB; and a small one, 20 tracks x 30 frames, the size of a package's clip.
const std::vector<uint8_t>& sims3Clip100k();
const std::vector<uint8_t>& sims3ClipSmall();
// A Sims 3 package: a 20-bone RIG and 500 RefPack-compressed clips of 20 tracks x 30 frames, 4.4 MB.
const std::vector<uint8_t>& sims3Package500();
// The same with 5,000 clips, 44 MB, the size of the real package (45.6 MB): the memory of a
// conversion item by item does not grow with the clips.
const std::vector<uint8_t>& sims3Package5000();

// A long RenderWare .anm (type 1) on a 64-bone binary tree: 5,000 frames at 30 Hz (about 167 s),
// every node keyed at every frame, 320,000 key frames, about 11.5 MB; anmSkeletonDff() is its
// skeleton, a DFF with no geometry.
const std::vector<uint8_t>& anmLong();
const std::vector<uint8_t>& anmSkeletonDff();

// A BattleForge unit: 60,000 vertices in a 245 x 245 grid (one BattleforgeMesh: face indices are
// 16-bit) on 128 bones in a binary tree, 4 influences a vertex, so the read does everything a real
// unit asks for (skeleton, rev-12 weights through the joint map, the CSkSkinInfo cross-check by
// position over the CGeoMesh), and a 2 s walk of 40 keys a channel; its DRS, about 8.2 MB.
rigport::Rig battleforgeRig();
const std::vector<uint8_t>& battleforgeDrs();

constexpr int kIfpAnimations = 1000;
constexpr int kIfpTracks = 32;
constexpr int kIfpKeys = 30;

}  // namespace rigport::bench
