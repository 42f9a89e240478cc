#include "formats/battleforge/container.hpp"

#include <fmt/format.h>

namespace rigport::battleforge {
namespace {

constexpr size_t kMinNodeRecord = 12;  // info_index, len, zero
constexpr const char* kRootName = "root node";  // the add-on's writer (commit 7562449)

// §2 node hierarchy: RootNode{id, unknown, len, name}, then Node{info_index, len, class_name, zero}.
// It names the blocks; a name is kept only when it links to a real record.
Status readHierarchy(ByteReader& h, std::vector<DrsBlock>& blocks, uint32_t nodeCount) {
  RP_CHECK(h.s32("root/identifier"));
  RP_CHECK(h.s32("root/unknown"));
  RP_ASSIGN(const uint32_t rootLen, h.u32("root/len"));
  RP_CHECK(h.skip(rootLen, "root/name"));
  RP_ASSIGN(const size_t n, h.count(nodeCount - 1, kMinNodeRecord, "node_count"));
  for (size_t i = 0; i < n; ++i) {
    auto scope = h.scope(Field("Node", static_cast<int64_t>(i)));
    RP_ASSIGN(const int32_t info, h.s32("info_index"));
    RP_ASSIGN(const uint32_t len, h.u32("len"));
    RP_ASSIGN(const auto name, h.bytes(len, "class_name"));
    RP_CHECK(h.s32("zero"));
    if (info < 1 || static_cast<size_t>(info) > blocks.size()) {
      return h.error(ErrorCode::BadValue, fmt::format("info_index {} names no NodeInformation record (1..{})", info, blocks.size()), "info_index");
    }
    blocks[info - 1].name.assign(reinterpret_cast<const char*>(name.data()), name.size());
  }
  return Ok{};
}

}  // namespace

const char* className(int32_t magic) {
  switch (magic) {
    case kCSkSkeleton: return "CSkSkeleton";
    case kCSkSkinInfo: return "CSkSkinInfo";
    case kCGeoMesh: return "CGeoMesh";
    case kCDspMeshFile: return "CDspMeshFile";
    case kCDspJointMap: return "CDspJointMap";
    default: return "";
  }
}

Result<std::vector<DrsBlock>> readBlocks(ByteReader& root, Provenance* provenance) {
  RP_ASSIGN(ByteReader h, root.window(0, std::min(root.size(), kHeaderSize), "header"));
  RP_ASSIGN(const int32_t magic, h.s32("magic"));
  if (magic != kDrsMagic) {
    return h.errorAt(0, ErrorCode::BadValue, fmt::format("magic 0x{:08X} is not a DRS (0xC57CF11E)", static_cast<uint32_t>(magic)), "magic");
  }
  RP_ASSIGN(const int32_t models, h.s32("number_of_models"));
  RP_ASSIGN(const uint32_t infoOffset, h.u32("node_information_offset"));
  RP_ASSIGN(const uint32_t hierarchyOffset, h.u32("node_hierarchy_offset"));
  RP_ASSIGN(const uint32_t nodeCount, h.u32("node_count"));
  if (models != 1 && provenance != nullptr) provenance->warn("model-count", fmt::format("number_of_models is {} (1 expected)", models));
  if (nodeCount == 0) return h.errorAt(16, ErrorCode::BadValue, "node_count 0: not even the root node", "node_count");
  if (infoOffset > root.size()) {
    return h.errorAt(8, ErrorCode::Truncated, fmt::format("node_information_offset 0x{:X} is past the end 0x{:X}", infoOffset, root.size()),
                     "node_information_offset");
  }
  RP_ASSIGN(ByteReader table, root.window(infoOffset, root.size() - infoOffset, "NodeInformation"));
  RP_ASSIGN(const size_t n, table.count(nodeCount, kNodeInformationSize, "node_count"));
  RP_CHECK(table.skip(kNodeInformationSize, "root"));  // §2 RootNodeInformation: zeroes, -1, 1, count, 0
  std::vector<DrsBlock> blocks;
  blocks.reserve(n - 1);
  for (size_t i = 1; i < n; ++i) {
    auto scope = table.scope(Field("record", static_cast<int64_t>(i)));
    DrsBlock b;
    RP_ASSIGN(b.magic, table.s32("magic"));
    RP_ASSIGN(b.identifier, table.s32("identifier"));
    RP_ASSIGN(b.offset, table.u32("offset"));
    RP_ASSIGN(b.size, table.u32("size"));
    RP_CHECK(table.skip(16, "spacer"));
    if (b.offset > root.size() || b.size > root.size() - b.offset) {
      return table.error(ErrorCode::Truncated,
                         fmt::format("{} payload 0x{:X}+{} lies outside the file (0x{:X} bytes)", *className(b.magic) ? className(b.magic) : "block",
                                     b.offset, b.size, root.size()),
                         "offset");
    }
    b.name = className(b.magic);
    blocks.push_back(std::move(b));
  }
  // The hierarchy is redundant (§2): read it for the names, warn if it is damaged.
  if (provenance != nullptr) {
    auto hier = root.window(std::min<size_t>(hierarchyOffset, root.size()), root.size() - std::min<size_t>(hierarchyOffset, root.size()),
                            "NodeHierarchy");
    Status named = hier ? readHierarchy(*hier, blocks, nodeCount) : Status(hier.error());
    if (!named) {
      provenance->warn("node-hierarchy", fmt::format("node hierarchy unreadable ({}); blocks found by magic alone", named.error().describe()));
      for (DrsBlock& b : blocks) b.name = className(b.magic);
    }
  }
  return blocks;
}

const DrsBlock* findBlock(const std::vector<DrsBlock>& blocks, int32_t magic) {
  for (const DrsBlock& b : blocks)
    if (b.magic == magic) return &b;
  return nullptr;
}

std::vector<uint8_t> writeContainer(const std::vector<BlockPayload>& payloads) {
  size_t total = kHeaderSize;
  for (const BlockPayload& p : payloads) total += p.bytes.size();
  const size_t infoOffset = total;
  const uint32_t nodeCount = static_cast<uint32_t>(payloads.size() + 1);
  ByteWriter w;
  w.reserve(total + kNodeInformationSize * nodeCount + 64 * nodeCount);
  w.s32(kDrsMagic);
  w.s32(1);
  w.u32(static_cast<uint32_t>(infoOffset));
  w.u32(static_cast<uint32_t>(infoOffset + kNodeInformationSize * nodeCount));
  w.u32(nodeCount);
  std::vector<uint32_t> offsets;
  for (const BlockPayload& p : payloads) {
    offsets.push_back(static_cast<uint32_t>(w.size()));
    w.raw(p.bytes);
  }
  w.zeros(16);
  w.s32(-1);
  w.s32(1);
  w.s32(static_cast<int32_t>(payloads.size()));
  w.s32(0);
  for (size_t i = 0; i < payloads.size(); ++i) {
    w.s32(payloads[i].magic);
    w.s32(static_cast<int32_t>(i + 1));  // the Node's 1-based place in the hierarchy
    w.u32(offsets[i]);
    w.u32(static_cast<uint32_t>(payloads[i].bytes.size()));
    w.zeros(16);
  }
  w.s32(0);
  w.s32(0);
  w.u32(static_cast<uint32_t>(std::char_traits<char>::length(kRootName)));
  w.raw({reinterpret_cast<const uint8_t*>(kRootName), std::char_traits<char>::length(kRootName)});
  for (size_t i = 0; i < payloads.size(); ++i) {
    const std::string_view name = payloads[i].name;
    w.s32(static_cast<int32_t>(i + 1));  // info_index: the table order is the hierarchy order here
    w.u32(static_cast<uint32_t>(name.size()));
    w.raw({reinterpret_cast<const uint8_t*>(name.data()), name.size()});
    w.s32(0);
  }
  return w.take();
}

}  // namespace rigport::battleforge
