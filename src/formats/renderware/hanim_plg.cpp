#include "formats/renderware/hanim_plg.hpp"

#include <fmt/format.h>

namespace rigport::renderware {

Result<HAnimPlg> readHAnimPlg(ByteReader& r, const DffContext& ctx) {
  HAnimPlg plg;
  plg.offset = r.fileOffsetOfStart() - kChunkHeaderSize;
  RP_ASSIGN(plg.version, r.s32("version"));
  if (plg.version != kHAnimVersion && ctx.provenance != nullptr) {
    ctx.provenance->warn("hanim-version", fmt::format("HAnim PLG version 0x{:X} (expected 0x100) at 0x{:X} in {}",
                                                      plg.version, plg.offset, r.path()));
  }
  RP_ASSIGN(plg.nodeId, r.s32("nodeId"));
  RP_ASSIGN(const int32_t numNodes, r.s32("numNodes"));
  if (numNodes < 0) return r.error(ErrorCode::BadValue, fmt::format("negative node count {}", numNodes), "numNodes");
  if (numNodes == 0) return plg;
  RP_ASSIGN(plg.hierarchyFlags, r.s32("flags"));
  RP_ASSIGN(plg.keyFrameSize, r.s32("keyFrameSize"));
  RP_ASSIGN(const size_t n, r.count(static_cast<uint64_t>(numNodes), 12, "nodes"));
  plg.nodes.resize(n);
  for (size_t i = 0; i < n; ++i) {
    auto scope = r.scope(Field("nodes", static_cast<int64_t>(i)));
    RP_ASSIGN(plg.nodes[i].id, r.s32("id"));
    RP_ASSIGN(plg.nodes[i].index, r.s32("index"));
    RP_ASSIGN(plg.nodes[i].flags, r.s32("flags"));
  }
  return plg;
}

void writeHAnimPlg(ByteWriter& w, const HAnimPlg& plg, uint32_t libraryId) {
  const size_t at = beginChunk(w, kHAnimPlg, libraryId);
  w.s32(plg.version);
  w.s32(plg.nodeId);
  w.s32(static_cast<int32_t>(plg.nodes.size()));
  if (!plg.nodes.empty()) {
    w.s32(plg.hierarchyFlags);
    w.s32(plg.keyFrameSize);
    for (const HAnimNode& n : plg.nodes) {
      w.s32(n.id);
      w.s32(n.index);
      w.s32(n.flags);
    }
  }
  endChunk(w, at);
}

std::vector<int32_t> hanimParents(const std::vector<HAnimNode>& nodes, bool* balanced) {
  std::vector<int32_t> parents(nodes.size(), -1);
  std::vector<int32_t> stack;
  int32_t current = -1;
  bool ok = true;
  for (size_t i = 0; i < nodes.size(); ++i) {
    parents[i] = current;
    if (nodes[i].flags & kHAnimPush) stack.push_back(current);
    current = static_cast<int32_t>(i);
    if (nodes[i].flags & kHAnimPop) {
      if (stack.empty()) {
        // The last node of a well-formed hierarchy pops the (empty) outermost level.
        if (i + 1 != nodes.size()) ok = false;
        current = -1;
      } else {
        current = stack.back();
        stack.pop_back();
      }
    }
  }
  if (balanced != nullptr) *balanced = ok;
  return parents;
}

std::vector<int32_t> hanimFlagsFromParents(const std::vector<int32_t>& parents) {
  const size_t n = parents.size();
  std::vector<int32_t> flags(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const bool hasChild = i + 1 < n && parents[i + 1] == static_cast<int32_t>(i);
    if (!hasChild) flags[i] |= kHAnimPop;
    for (size_t j = i + 1; j < n; ++j) {
      if (parents[j] == parents[i]) {
        flags[i] |= kHAnimPush;
        break;
      }
    }
  }
  return flags;
}

HAnimNodeOrder hanimNodeOrder(const Skeleton& sk, const std::vector<uint32_t>& joints) {
  const size_t nb = sk.bones.size();
  std::vector<int32_t> position(nb, -1);
  for (size_t j = 0; j < joints.size(); ++j) position[joints[j]] = static_cast<int32_t>(j);
  // Joint parent = nearest ancestor bone that is a joint.
  std::vector<int32_t> jointParent(joints.size(), -1);
  for (size_t j = 0; j < joints.size(); ++j) {
    for (int32_t p = sk.bones[joints[j]].parent; p >= 0; p = sk.bones[static_cast<size_t>(p)].parent) {
      if (position[static_cast<size_t>(p)] >= 0) {
        jointParent[j] = position[static_cast<size_t>(p)];
        break;
      }
    }
  }
  std::vector<std::vector<uint32_t>> children(joints.size());
  std::vector<uint32_t> roots;
  for (size_t j = 0; j < joints.size(); ++j) {
    if (jointParent[j] < 0) {
      roots.push_back(static_cast<uint32_t>(j));
    } else {
      children[static_cast<size_t>(jointParent[j])].push_back(static_cast<uint32_t>(j));
    }
  }
  HAnimNodeOrder tree;
  std::vector<int32_t> nodeOfJoint(joints.size(), -1);
  std::vector<uint32_t> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const uint32_t j = stack.back();
    stack.pop_back();
    nodeOfJoint[j] = static_cast<int32_t>(tree.bones.size());
    tree.bones.push_back(joints[j]);
    tree.parents.push_back(jointParent[j] < 0 ? -1 : nodeOfJoint[static_cast<size_t>(jointParent[j])]);
    for (auto it = children[j].rbegin(); it != children[j].rend(); ++it) stack.push_back(*it);
  }
  return tree;
}

}  // namespace rigport::renderware
