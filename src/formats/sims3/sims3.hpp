// The Sims 3: CLIP animations (0x6B20C4F3), RIG skeletons (0x8EAF13DE) and the DBPF 2.0 packages
// that hold them, RefPack-compressed (format note: shared/formats/sims3_clip.md).
// A CLIP carries no skeleton: its tracks name bones by FNV32 of the lower-cased name (R10, R11)
// and bindAnimations() (core/bind.hpp) matches them against a RIG's names.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/asset.hpp"
#include "core/error.hpp"
#include "core/read_context.hpp"
#include "core/rig.hpp"

namespace rigport::sims3 {

bool probeClip(std::span<const uint8_t> bytes);
// One clip set holding the one animation of a CLIP resource.
Result<ClipSet> readClip(std::span<const uint8_t> bytes, ReadContext& ctx);
// The rig's only animation as a CLIP (a rig with several: ErrorCode::Usage; a package holds many).
Result<std::vector<uint8_t>> writeClip(const Rig& rig);
// One animation as a CLIP, tracks hashed from `skeleton`'s bone names where bound to it.
Result<std::vector<uint8_t>> writeClipAnimation(const Animation& anim, const Skeleton* skeleton);

bool probeRig(std::span<const uint8_t> bytes);
// The new EA RIG format (§3.2); a Granny2 rig is ErrorCode::Unsupported.
Result<Rig> readRig(std::span<const uint8_t> bytes, ReadContext& ctx);
Result<std::vector<uint8_t>> writeRig(const Rig& rig);

bool probePackage(std::span<const uint8_t> bytes);
Result<std::vector<ItemInfo>> listPackage(const Source& source, ReadContext& ctx);
// Every RIG as a rig and every CLIP as a clip set of its own (named from the name map, else its
// internal name); other resources are listed by listPackage() only. With ReadOptions::clipsRead,
// the RIGs first, then each clip set handed on as it is decoded, none kept.
Result<Asset> readPackage(const Source& source, ReadContext& ctx);
// A package holding the rig as a RIG, each of its animations as a RefPack-compressed CLIP keyed by
// its clip key (clip_resource_key.hpp), and a name map.
Result<std::vector<uint8_t>> writePackage(const Rig& rig);
// writePackage(rig) written into a copy of `base`, a package: its resources stay under their keys
// with their stored bytes, those the rig's package holds with other content are replaced, the rig's
// new ones are added (package_onto.cpp).
Result<std::vector<uint8_t>> writePackageOnto(const Rig& rig, const Source& base, ReadContext& ctx);

}  // namespace rigport::sims3
