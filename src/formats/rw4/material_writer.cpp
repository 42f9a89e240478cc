// Rig materials → RenderMaterialData (docs/rw4_materials.md §1–§3), so that the texture GUIDs a
// model arena's materials name survive arena → glTF → arena.
#include <array>
#include <charconv>
#include <map>
#include <optional>

#include "formats/rw4/material.hpp"
#include "formats/rw4/material_layout.hpp"

namespace rigport::rw4 {
namespace {

struct Channel {
  std::string input;
  uint16_t flags = 0;
  uint16_t imageChannel = 0xFFFF;  // every REAL channel's (§3)
  uint64_t guid = 0;
  std::string stream;
  std::array<float, 4> constants{};
};

// "0x" and up to 16 hex digits (textureGuidName's form) as a GUID.
std::optional<uint64_t> parseGuid(const std::string& name) {
  if (name.size() < 3 || name.size() > 18 || name[0] != '0' || (name[1] != 'x' && name[1] != 'X')) return std::nullopt;
  uint64_t guid = 0;
  const auto [end, ec] = std::from_chars(name.data() + 2, name.data() + name.size(), guid, 16);
  if (ec != std::errc() || end != name.data() + name.size()) return std::nullopt;
  return guid;
}

// A channel as readChannel keeps it in extras; fields missing or of another type take defaults.
Channel fromExtras(const nlohmann::json& j) {
  Channel c;
  c.input = j.value("input", std::string());
  c.flags = j.value("flags", uint16_t{0});
  c.imageChannel = j.value("imageChannel", uint16_t{0xFFFF});
  c.stream = j.value("stream", std::string());
  c.guid = parseGuid(j.value("guid", std::string())).value_or(0);
  if (const auto it = j.find("constants"); it != j.end() && it->is_array()) {
    for (size_t k = 0; k < 4 && k < it->size(); ++k) c.constants[k] = (*it)[k].is_number() ? (*it)[k].get<float>() : 0.0f;
  }
  return c;
}

std::vector<Channel> channelsOf(const Material& m) {
  std::vector<Channel> out;
  const nlohmann::json* kept = nullptr;
  if (m.extras.is_object() && m.extras.contains("rw4") && m.extras["rw4"].is_object() && m.extras["rw4"].contains("channels")) {
    kept = &m.extras["rw4"]["channels"];
  }
  if (kept != nullptr && kept->is_array()) {
    for (const nlohmann::json& j : *kept) {
      if (j.is_object()) out.push_back(fromExtras(j));
    }
    return out;
  }
  out.push_back(Channel{material::kName, 0, 0xFFFF, 0, m.name, {}});
  if (!m.textures.empty()) {
    if (const auto guid = parseGuid(m.textures.front())) out.push_back(Channel{material::kDiffuse, 0, 0xFFFF, *guid, m.textures.front(), {}});
  }
  if (const auto guid = parseGuid(m.normalMap)) out.push_back(Channel{material::kNormal, 0, 0xFFFF, *guid, m.normalMap, {}});
  return out;
}

// The string list (§1): each distinct string once, offsets from the object's start.
class Strings {
 public:
  uint32_t add(const std::string& s) {
    const auto [it, fresh] = at_.emplace(s, static_cast<uint32_t>(bytes_));
    if (fresh) {
      order_.push_back(s);
      bytes_ += s.size() + 1;
    }
    return it->second;
  }
  const std::vector<std::string>& order() const { return order_; }

 private:
  std::map<std::string, uint32_t> at_;
  std::vector<std::string> order_;
  size_t bytes_ = 0;
};

}  // namespace

void writeMaterialData(ByteWriter& w, const std::vector<Material>& materials) {
  std::vector<std::vector<Channel>> channels;
  size_t total = 0;
  for (const Material& m : materials) {
    channels.push_back(channelsOf(m));
    total += channels.back().size();
  }
  const auto channelsAt = static_cast<uint32_t>(material::kHeaderSize + materials.size() * material::kMaterialSize);
  const auto stringsAt = static_cast<uint32_t>(channelsAt + total * material::kChannelSize);
  Strings strings;
  for (uint32_t v : {static_cast<uint32_t>(materials.size()), static_cast<uint32_t>(total), static_cast<uint32_t>(material::kHeaderSize),
                     channelsAt, stringsAt}) {
    w.u32(v);
  }
  uint32_t first = channelsAt;
  for (const std::vector<Channel>& cs : channels) {
    w.u32(static_cast<uint32_t>(cs.size()));
    w.u32(0);  // m_uiFlags
    w.u32(first);
    first += static_cast<uint32_t>(cs.size() * material::kChannelSize);
  }
  for (const std::vector<Channel>& cs : channels) {
    for (const Channel& c : cs) {
      w.u32(stringsAt + strings.add(c.input));
      w.u16(c.flags);
      w.u16(c.imageChannel);
      w.u32(material::kPad0);
      w.u32(material::kPad1);
      if ((c.flags & material::kScalarConstant) != 0) {
        for (float f : c.constants) w.f32(f);
        continue;
      }
      w.u64(c.guid);
      w.u32(stringsAt + strings.add(c.stream));
      w.u32(0);  // m_pStream: a runtime pointer
    }
  }
  for (const std::string& s : strings.order()) w.cString(s);
}

}  // namespace rigport::rw4
