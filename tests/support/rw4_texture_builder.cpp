#include "support/rw4_texture_builder.hpp"

#include <cstring>

namespace rigport::test {
namespace {

class Bytes {
 public:
  explicit Bytes(bool big) : big_(big) {}
  void u8(uint32_t v) { out.push_back(static_cast<uint8_t>(v)); }
  void u16(uint32_t v) { put(v, 2); }
  void u32(uint32_t v) { put(v, 4); }
  void u64(uint64_t v) { put(v, 8); }
  void pad(size_t align) {
    while (out.size() % align != 0) out.push_back(0);
  }
  void at32(size_t pos, uint32_t v) {
    for (size_t i = 0; i < 4; ++i) out[pos + i] = static_cast<uint8_t>(v >> (8 * (big_ ? 3 - i : i)));
  }
  std::vector<uint8_t> out;

 private:
  void put(uint64_t v, size_t n) {
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * (big_ ? n - 1 - i : i))));
  }
  bool big_;
};

struct Row {
  uint32_t ptr, size, align, typeId;
};

constexpr uint32_t kTexture = 0x000200E8, kRaster = 0x00020003, kToc = 0x00EB000B, kVersion = 0x00EB0008;

uint32_t typeIndex(const std::vector<uint32_t>& types, uint32_t id) {
  for (uint32_t i = 0; i < types.size(); ++i)
    if (types[i] == id) return i;
  return 0;
}

void writeSections(Bytes& b, const std::vector<uint32_t>& types) {
  const uint32_t typesAt = 28, externalAt = typesAt + 12 + 4 * static_cast<uint32_t>(types.size());
  const uint32_t subrefsAt = externalAt + 36, atomsAt = subrefsAt + 28;
  for (uint32_t v : {0x00010004u, 4u, 0xCu, typesAt, externalAt, subrefsAt, atomsAt}) b.u32(v);
  for (uint32_t v : {0x00010005u, static_cast<uint32_t>(types.size()), 0xCu}) b.u32(v);
  for (uint32_t t : types) b.u32(t);
  for (uint32_t v : {0x00010006u, 3u, 0x18u, 7u, 0xFFB00000u, 7u, 0u, 0u, 0u}) b.u32(v);
  for (uint32_t v : {0x00010007u, 0u, 0u, 0u, 0u, 0u, 0u}) b.u32(v);
  for (uint32_t v : {0x00010008u, 0u, 0u}) b.u32(v);
}

void writeTextureObject(Bytes& b, const Rw4Texture& t, uint32_t buffer, bool ps3) {
  const uint32_t mips = t.mipmap >= 0 ? static_cast<uint32_t>(t.mipmap) : static_cast<uint32_t>(t.levels.size());
  if (ps3) {  // TextureInformationPS3, the values of the public samples where the test sets none
    for (uint32_t v : {uint32_t{t.format}, mips, uint32_t{t.dimension}, uint32_t{t.cubemap}}) b.u8(v);
    b.u32(0xAAE4);
    b.u16(t.width);
    b.u16(t.height);
    b.u16(1);
    b.u16(0);
    for (uint32_t v : {t.pitch, 0u, buffer, 2u, 0u}) b.u32(v);
    b.u16(0x5572);
    b.u8(0);
    b.u8(t.format);
    return;
  }
  b.u32(t.d3dFormat);  // SporeModder-FX RWRaster.write
  b.u16(8);
  b.u16(0);
  b.u32(0);
  b.u16(t.width);
  b.u16(t.height);
  b.u8(8);
  b.u8(mips);
  b.u16(0);
  for (uint32_t v : {0u, 0u, buffer}) b.u32(v);
}

// {count, m_pArray, m_pNames, m_uiTypeCount, m_pTypeMap}, 24-byte entries, then the names; a name's
// offset counts from the table's start (rw4_arena.md §4.3, as in the public samples). Only the
// textures given a name or a GUID have an entry.
void writeToc(Bytes& b, const std::vector<Rw4Texture>& textures) {
  const size_t start = b.out.size();
  std::vector<uint32_t> listed;
  for (uint32_t i = 0; i < textures.size(); ++i)
    if (!textures[i].tocName.empty() || textures[i].guid != 0) listed.push_back(i);
  const auto count = static_cast<uint32_t>(listed.size());
  const uint32_t names = 0x14 + 24 * count;
  for (uint32_t v : {count, 0x14u, names, 0u, 0u}) b.u32(v);
  uint32_t at = names;
  for (uint32_t i : listed) {
    b.u32(textures[i].tocName.empty() ? 0 : at);
    b.u32(0x9B0F1678);
    b.u64(textures[i].guid);
    b.u32(0xAC462E4A);
    b.u32(2 * i + 1);  // the Texture's row
    at += static_cast<uint32_t>(textures[i].tocName.size() + 1);
  }
  for (uint32_t i : listed) {
    b.out.insert(b.out.end(), textures[i].tocName.begin(), textures[i].tocName.end());
    b.u8(0);
  }
  b.at32(start + 0x10, static_cast<uint32_t>(b.out.size() - start));  // m_pTypeMap: the end, no type map
}

}  // namespace

std::vector<uint8_t> writeTextureArena(const std::vector<Rw4Texture>& textures, bool ps3) {
  const uint32_t n = ps3 ? 6 : 4, resource = ps3 ? 0x00010034 : 0x00010030, descriptor = ps3 ? 5 : 1;
  const uint32_t objectType = ps3 ? kTexture : kRaster, resourceAlign = ps3 ? 0x80 : 0x10;
  std::vector<uint32_t> types{0};
  for (uint32_t t = 0x00010030; t <= resource; ++t) types.push_back(t);
  for (uint32_t t : {0x00010010u, objectType, kVersion, kToc}) types.push_back(t);
  Bytes b(ps3);
  // magic, platform, isBigEndian, 32-bit pointers, alignment 4, version "454" "000" (§2.1)
  const char* head = ps3 ? "\x89RW4ps3\0\r\n\x1A\n\x01\x20\x04\0" "454\0" "000" : "\x89RW4w32\0\r\n\x1A\n\0\x20\x04\0" "454\0" "000";
  b.out.assign(head, head + 24);
  const size_t counts = b.out.size();
  for (int i = 0; i < 11 + 5 * static_cast<int>(n) + 1; ++i) b.u32(0);  // counts and descriptors, filled in below
  const size_t sections = b.out.size();
  writeSections(b, types);
  // Each texture's pixels at the next aligned offset of the resource.
  std::vector<Row> rows;
  Bytes data(ps3);
  std::vector<size_t> objectRows;
  for (size_t i = 0; i < textures.size(); ++i) {
    data.pad(resourceAlign);
    uint32_t size = 0;
    for (const auto& level : textures[i].levels) size += static_cast<uint32_t>(level.size());
    rows.push_back({static_cast<uint32_t>(data.out.size()), size, resourceAlign, resource});
    for (const auto& level : textures[i].levels) data.out.insert(data.out.end(), level.begin(), level.end());
    objectRows.push_back(rows.size());
    rows.push_back({0, ps3 ? 0x28u : 0x20u, 4, objectType});
  }
  for (size_t i = 0; i < textures.size(); ++i) {
    b.pad(4);
    rows[objectRows[i]].ptr = static_cast<uint32_t>(b.out.size());
    const int64_t buffer = textures[i].buffer >= 0 ? textures[i].buffer : static_cast<int64_t>(objectRows[i] - 1);
    writeTextureObject(b, textures[i], static_cast<uint32_t>(buffer), ps3);
  }
  if (ps3) {
    b.pad(16);
    const auto at = static_cast<uint32_t>(b.out.size());
    writeToc(b, textures);
    rows.push_back({at, static_cast<uint32_t>(b.out.size() - at), 16, kToc});
  }
  b.pad(16);
  rows.push_back({static_cast<uint32_t>(b.out.size()), 8, 16, kVersion});
  b.u32(25);
  b.u32(13);
  const auto dictStart = static_cast<uint32_t>(b.out.size());
  for (const Row& r : rows) {
    for (uint32_t v : {r.ptr, 0u, r.size, r.align, typeIndex(types, r.typeId), r.typeId}) b.u32(v);
  }
  const auto mainSize = static_cast<uint32_t>(b.out.size());
  const auto rowCount = static_cast<uint32_t>(rows.size());
  const uint32_t header[] = {0, 7, rowCount, rowCount, 16, 0, dictStart, static_cast<uint32_t>(sections), 0, 0, 0};
  for (size_t i = 0; i < 11; ++i) b.at32(counts + 4 * i, header[i]);
  for (uint32_t d = 0; d < n; ++d) {
    const uint32_t size = d == 0 ? mainSize : d == descriptor ? static_cast<uint32_t>(data.out.size()) : 0;
    b.at32(counts + 44 + 8 * d, size);
    b.at32(counts + 48 + 8 * d, d == 0 ? 16 : d == descriptor ? resourceAlign : 1);
  }
  b.out.insert(b.out.end(), data.out.begin(), data.out.end());
  return std::move(b.out);
}

}  // namespace rigport::test
