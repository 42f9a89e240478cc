// The synthetic inputs of the benchmarks, written by rigport's own writers, shared by the benchmark
// programs and by `bench_inputs DIR`, which writes them as files for the whole-process scripts
// (scripts/bench_process.sh). Each is built once per process.
#pragma once

#include <cstdint>
#include <vector>

#include "core/rig.hpp"

namespace rigport::bench {

// Issue 11's DFF: 4 atomics x 32,768 vertices (RW triangles index at most 65,535 vertices per
// geometry), 4 influences each, 64 bones in a binary tree, normals and UVs; about 12 MB.
const std::vector<uint8_t>& skinnedDff();

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

constexpr int kIfpAnimations = 1000;
constexpr int kIfpTracks = 32;
constexpr int kIfpKeys = 30;

}  // namespace rigport::bench
