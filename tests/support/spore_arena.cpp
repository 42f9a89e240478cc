#include "support/spore_arena.hpp"

#include <algorithm>
#include <cstring>

#include <gtest/gtest.h>

#include "core/assemble.hpp"
#include "core/source.hpp"
#include "formats/rw4/rw4.hpp"

namespace rigport::test {

std::vector<uint8_t> sporeBytes(const Rig& rig) {
  rw4::ArenaWriteOptions o;
  o.platform = rw4::Platform::Pc;
  o.sporeMeshes = true;
  o.animationObjects = true;
  auto bytes = rw4::writeArena(rig, o);
  EXPECT_TRUE(bytes.ok()) << bytes.error().describe();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

Asset readArenaBytes(const std::vector<uint8_t>& bytes, const std::string& name) {
  const auto source = Source::fromBytes(bytes, name);
  ReadContext ctx;
  auto asset = rw4::readArena(*source, ctx);
  EXPECT_TRUE(asset.ok()) << asset.error().describe();
  return asset.ok() ? std::move(*asset) : Asset{};
}

Rig readArenaRig(const std::vector<uint8_t>& bytes, const std::string& name) {
  auto assembled = assemble(readArenaBytes(bytes, name), {}, nullptr, {});
  EXPECT_TRUE(assembled.ok()) << assembled.error().describe();
  if (!assembled.ok()) return Rig{};
  EXPECT_EQ(assembled->size(), 1u);
  if (assembled->size() != 1) return Rig{};
  return std::move(assembled->front().rig);
}

std::vector<uint32_t> ParsedArena::rowsOf(uint32_t type) const {
  std::vector<uint32_t> rows;
  for (uint32_t i = 0; i < arena.dictionary.size(); ++i)
    if (arena.dictionary[i].typeId == type) rows.push_back(i);
  return rows;
}

uint32_t ParsedArena::u32At(const std::vector<uint8_t>& bytes, uint32_t row, size_t offset) const {
  uint32_t v;
  std::memcpy(&v, bytes.data() + at(row, offset), 4);
  return v;
}

ParsedArena parse(const std::vector<uint8_t>& bytes) {
  ByteReader root(bytes);
  Provenance prov;
  auto arena = rw4::parseArena(root, prov);
  EXPECT_TRUE(arena.ok()) << arena.error().describe();
  return ParsedArena{arena.ok() ? *arena : rw4::Arena{}};
}

size_t cutAndFlip(const std::vector<uint8_t>& bytes, size_t cutStep, const std::function<void(const Asset&)>& onRead) {
  for (size_t n = 0; n < bytes.size(); n += cutStep) {
    const auto source = Source::fromBytes(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n)), "cut.rw4");
    ReadContext ctx;
    EXPECT_FALSE(rw4::readArena(*source, ctx).ok()) << n;
  }
  size_t read = 0;
  for (size_t at = 0; at < bytes.size(); at += 3) {
    std::vector<uint8_t> flipped = bytes;
    flipped[at] ^= 0xA5;
    const auto source = Source::fromBytes(std::move(flipped), "flip.rw4");
    ReadContext ctx;
    auto asset = rw4::readArena(*source, ctx);
    if (!asset.ok()) continue;
    ++read;
    onRead(*asset);
  }
  return read;
}

bool hasWarning(const Provenance& p, const std::string& code, const std::string& text) {
  return std::any_of(p.warnings.begin(), p.warnings.end(),
                     [&](const Warning& w) { return w.code == code && w.message.find(text) != std::string::npos; });
}

std::string warnings(const Provenance& p) {
  std::string out;
  for (const Warning& w : p.warnings) out += w.code + ": " + w.message + "\n";
  return out;
}

}  // namespace rigport::test
