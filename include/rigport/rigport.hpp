// rigport's public face: the calls a program that embeds rigport needs, the same ones the `rigport`
// command line is made of. Everything is in namespace rigport; errors are values (Result<T> holds a
// T or an Error whose describe() names the file, offset and field), never exceptions.
//
//   formats(), findFormat()         the format registry: names, extensions, what each carries
//   listItems(path)                 a file's items (a package's resources, an arena's objects), cheaply
//   loadAsset(path)                 everything a file holds: rigs (skeleton, meshes, clips) and clip sets
//   loadSharedInputs(LoadOptions)   clip files and a skeleton named once for many inputs
//   loadInput(path, shared)         read + assemble (clips bound to their skeleton) + repair: the rigs
//                                   `rigport convert` writes
//   settleStance(rig, ...)          the rest pose (a clip's, the bind pose, the game's idle) and the
//                                   lift onto the ground glTF output gets
//   exportGlb(rig, options)         a rig as .glb bytes (moved in: converted in place; exportGlbInto()
//                                   reuses an output array; an ExportCache reuses the copy of a rig
//                                   kept); exportGltf() as .gltf + .bin
//   RigStorage                      the arrays of rigs a program is done with (recycle()), which the
//                                   next read (ReadOptions::storage, loadAsset()) fills rather than
//                                   allocating: file after file at the speed of the CLI's allocator
//                                   policy without setting it
//   encodeForFormat(rig, format...) a rig as a game format's files (`convert --to`), fitted to what the
//                                   format holds, each loss a warning in the result
//   platform::writeFileAtomic()     writes a file whole or not at all
//
// A 20-line program converting a file to .glb as `rigport convert IN -o OUT.glb` does, byte for
// byte: tests/package/convert_example.cpp (built against the installed package by the
// package_example test; README "Library").
#pragma once

#include "core/asset.hpp"
#include "core/error.hpp"
#include "core/rig.hpp"
#include "core/rig_storage.hpp"
#include "export/gltf.hpp"
#include "formats/registry.hpp"
#include "pipeline/encode.hpp"
#include "pipeline/inputs.hpp"
#include "pipeline/stance.hpp"
#include "platform/files.hpp"
