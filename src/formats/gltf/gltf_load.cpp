// GLB container checks (Spec §"Binary glTF Layout": 12-byte header "glTF", version 2, total length;
// then chunks of {u32 length, u32 type, payload}, JSON first, BIN optional second), the JSON's
// cost charged to the Budget, then tinygltf with file-system callbacks that go through
// ReadContext::openSibling and the Budget, and an image loader that decodes nothing.
#include "formats/gltf/gltf_load.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace rigport::gltf_in {
namespace {

constexpr uint32_t kGlbMagic = 0x46546C67;  // "glTF"
constexpr uint32_t kChunkJson = 0x4E4F534A;  // "JSON"
constexpr uint32_t kChunkBin = 0x004E4942;   // "BIN\0"
// What one JSON value costs once parsed (nlohmann node + tinygltf's copy), charged per separator.
constexpr uint64_t kBytesPerJsonValue = 192;

struct Container {
  std::span<const uint8_t> json;
  std::span<const uint8_t> bin;  // empty without a BIN chunk
  uint64_t binOffset = 0;
  bool glb = false;
};

Result<Container> splitGlb(std::span<const uint8_t> bytes, ReadContext& ctx) {
  ByteReader r = ctx.reader(bytes);
  auto scope = r.scope("glb");
  Container c;
  c.glb = true;
  RP_ASSIGN(const uint32_t magic, r.u32("magic"));
  if (magic != kGlbMagic) return r.errorAt(0, ErrorCode::BadValue, "not a GLB (magic is not \"glTF\")", "magic");
  RP_ASSIGN(const uint32_t version, r.u32("version"));
  if (version != 2) return r.errorAt(4, ErrorCode::Unsupported, fmt::format("GLB version {}; only glTF 2.0 is read", version), "version");
  RP_ASSIGN(const uint32_t length, r.u32("length"));
  if (length > bytes.size()) {
    return r.errorAt(8, ErrorCode::Truncated, fmt::format("header says {} bytes, the file has {}", length, bytes.size()), "length");
  }
  RP_ASSIGN(ByteReader body, r.sub(length - 12, "chunks"));
  RP_ASSIGN(const uint32_t jsonLength, body.u32(Field("chunks", 0)));
  RP_ASSIGN(const uint32_t jsonType, body.u32(Field("chunks", 0)));
  if (jsonType != kChunkJson) return body.errorAt(4, ErrorCode::BadValue, "the first chunk is not JSON", Field("chunks", 0));
  RP_ASSIGN(c.json, body.bytes(jsonLength, Field("chunks", 0)));
  if (body.atEnd()) return c;
  RP_ASSIGN(const uint32_t binLength, body.u32(Field("chunks", 1)));
  RP_ASSIGN(const uint32_t binType, body.u32(Field("chunks", 1)));
  if (binType != kChunkBin) {
    // Spec: a client ignores chunks of unknown types; only the second may be BIN.
    return c;
  }
  c.binOffset = body.fileOffset();
  RP_ASSIGN(c.bin, body.bytes(binLength, Field("chunks", 1)));
  return c;
}

// Charges the parsed form of `json` and refuses nesting beyond kMaxJsonDepth, in one pass that
// knows strings (brackets inside them do not count).
Status chargeJson(std::span<const uint8_t> json, ReadContext& ctx) {
  uint64_t values = 1;
  size_t depth = 0;
  bool inString = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const uint8_t c = json[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
      continue;
    }
    switch (c) {
      case '"': inString = true; break;
      case '[': case '{':
        if (++depth > kMaxJsonDepth) {
          Error e = makeError(ErrorCode::TooLarge, fmt::format("JSON nested deeper than {} levels", kMaxJsonDepth));
          e.path = "json";
          e.offset = i;
          return e;
        }
        ++values;
        break;
      case ']': case '}': if (depth > 0) --depth; break;
      case ',': case ':': ++values; break;
      default: break;
    }
  }
  const uint64_t cost = values * kBytesPerJsonValue + json.size() * 2;
  if (!ctx.budget().charge(cost)) {
    Error e = makeError(ErrorCode::TooLarge, ctx.budget().refusal(cost));
    e.path = "json";
    return e;
  }
  return Ok{};
}

// What the file-system callbacks need; tinygltf hands it back as user_data.
struct FileAccess {
  ReadContext* ctx = nullptr;
  std::string failure;     // why the last external file could not be read, for the error
  std::string failedPath;  // which file that was
};

bool fileExists(const std::string&, void*) { return true; }  // the read says why it failed
std::string expandNothing(const std::string& path, void*) { return path; }  // no shell expansion

bool readSibling(std::vector<unsigned char>* out, std::string* err, const std::string& path, void* user) {
  auto* access = static_cast<FileAccess*>(user);
  access->failedPath = path;
  if (!access->ctx->openSibling) {
    access->failure = fmt::format("'{}' is an external file, and this read may not open files beside it", path);
    *err = access->failure;
    return false;
  }
  auto source = access->ctx->openSibling(path);
  if (!source) {
    access->failure = fmt::format("cannot open '{}' ({})", path, source.error().message);
    *err = access->failure;
    return false;
  }
  const auto bytes = (*source)->bytes();
  if (!access->ctx->budget().charge(bytes.size())) {
    access->failure = fmt::format("'{}': {}", path, access->ctx->budget().refusal(bytes.size()));
    *err = access->failure;
    return false;
  }
  out->assign(bytes.begin(), bytes.end());
  if (const auto lost = (*source)->unreadableFrom()) {  // Source::unreadableFrom(): zeros, not the file
    access->failure = fmt::format("'{}' became shorter while it was read (unreadable from byte {})", path, *lost);
    *err = access->failure;
    return false;
  }
  access->failedPath.clear();
  return true;
}

bool writeNothing(std::string* err, const std::string&, const std::vector<unsigned char>&, void*) {
  *err = "rigport's glTF reader writes no files";
  return false;
}

// Textures are not part of a rig: their bytes are kept (charged) but never decoded, so a small PNG
// cannot expand into gigabytes of pixels.
bool keepImageUndecoded(tinygltf::Image*, const int, std::string*, std::string*, int, int, const unsigned char*, int, void*) {
  return true;
}

// The buffers[i].uri that named `path` (tinygltf percent-decodes URIs before opening them).
std::string bufferField(std::span<const uint8_t> json, const std::string& path) {
  const auto doc = nlohmann::json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_object() && doc.contains("buffers") && doc["buffers"].is_array()) {
    const auto& buffers = doc["buffers"];
    for (size_t i = 0; i < buffers.size(); ++i) {
      if (!buffers[i].is_object() || !buffers[i].contains("uri") || !buffers[i]["uri"].is_string()) continue;
      const std::string uri = buffers[i]["uri"].get<std::string>();
      if (uri == path || (uri.find('%') != std::string::npos && path.find('%') == std::string::npos)) return fmt::format("buffers[{}].uri", i);
    }
  }
  return "buffers[].uri";
}

// Extensions a file may require that rigport honours: KHR_mesh_quantization (the accessor reader
// decodes every integer encoding it allows) and the image encodings (rigport keeps texture names and
// decodes no image). Any other required extension changes what the data means (Spec §3.12: a client
// that does not support one must not load the file).
constexpr std::array<std::string_view, 4> kReadableRequired{"KHR_mesh_quantization", "KHR_texture_basisu", "EXT_texture_webp",
                                                            "EXT_texture_avif"};

std::string_view requiredHint(std::string_view extension) {
  if (extension == "KHR_draco_mesh_compression") return "Draco-compressed meshes are not decoded; export without Draco compression";
  if (extension == "EXT_meshopt_compression" || extension == "KHR_meshopt_compression") {
    return "meshopt-compressed buffers are not decoded; write the file without compression (gltfpack without -c)";
  }
  return "rigport does not know this extension, and the file says a reader must";
}

// The first required extension rigport cannot honour, as the error the read ends with.
std::optional<Error> unsupportedRequired(const std::vector<std::string>& required, const std::string& file) {
  for (size_t i = 0; i < required.size(); ++i) {
    if (std::find(kReadableRequired.begin(), kReadableRequired.end(), required[i]) != kReadableRequired.end()) continue;
    Error e = makeError(ErrorCode::Unsupported, fmt::format("'{}' is required and not supported: {}", required[i], requiredHint(required[i])));
    e.file = file;
    e.path = fmt::format("extensionsRequired[{}]", i);
    return e;
  }
  return std::nullopt;
}

// extensionsRequired from the JSON text, for a document tinygltf refused: a compressed file fails
// inside tinygltf (its accessors have no plain bufferView), and the extension is the real reason.
std::vector<std::string> requiredInJson(std::span<const uint8_t> json) {
  std::vector<std::string> out;
  const auto doc = nlohmann::json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return out;
  const auto it = doc.find("extensionsRequired");
  if (it == doc.end() || !it->is_array()) return out;
  for (const auto& name : *it) {
    if (name.is_string()) out.push_back(name.get<std::string>());
  }
  return out;
}

// A data URI quoted whole would put a buffer's base64 in the message: its first kQuotedUriChars
// characters are kept, with its length (issue 25).
constexpr size_t kQuotedUriChars = 64;

std::string shortenDataUris(std::string text) {
  for (size_t at = text.find("data:"); at != std::string::npos; at = text.find("data:", at + 1)) {
    const size_t end = std::min(text.find_first_of(" \t\n'\"", at), text.size());
    if (end - at <= kQuotedUriChars) continue;
    text.replace(at, end - at, fmt::format("{}… ({} bytes)", text.substr(at, kQuotedUriChars), end - at));
  }
  return text;
}

// Where tinygltf's "'P' property is missing in PARENT" happened: tinygltf names the kind of object,
// not which one. The places each kind is found ('*' any index or key); the first such object
// without P is the one.
struct MissingPlace {
  std::string_view parent;
  std::vector<std::string_view> path;
};
const std::vector<MissingPlace>& missingPlaces() {
  static const std::vector<MissingPlace> places{
      {"Accessor", {"accessors", "*"}},
      {"SparseAccessor", {"accessors", "*", "sparse"}},
      {"SparseAccessor", {"accessors", "*", "sparse", "*"}},
      {"BufferView", {"bufferViews", "*"}},
      {"Buffer", {"buffers", "*"}},
      {"Skin", {"skins", "*"}},
      {"Camera", {"cameras", "*"}},
      {"OrthographicCamera", {"cameras", "*", "orthographic"}},
      {"PerspectiveCamera", {"cameras", "*", "perspective"}},
      {"Primitive", {"meshes", "*", "primitives", "*"}},
      {"AnimationChannel", {"animations", "*", "channels", "*"}},
      {"Asset", {"asset"}},
  };
  return places;
}

// The first object at `path` below `node` without `property`, as "accessors[3]" (or empty).
std::string firstWithout(const nlohmann::json& node, std::span<const std::string_view> path, const std::string& property,
                         const std::string& at) {
  if (path.empty()) return node.is_object() && !node.contains(property) ? at : std::string();
  const std::string_view step = path.front();
  const auto rest = path.subspan(1);
  if (node.is_array() && step == "*") {
    for (size_t i = 0; i < node.size(); ++i) {
      if (std::string found = firstWithout(node[i], rest, property, fmt::format("{}[{}]", at, i)); !found.empty()) return found;
    }
  } else if (node.is_object()) {
    for (const auto& [key, child] : node.items()) {
      if (step != "*" && key != step) continue;
      if (std::string found = firstWithout(child, rest, property, at.empty() ? key : at + "." + key); !found.empty()) return found;
    }
  }
  return {};
}

// "accessors[3]" for "'count' property is missing in Accessor", or empty when the JSON does not say.
std::string missingPropertyPlace(const std::string& message, const nlohmann::json& doc) {
  const std::string_view kMissing = "' property is missing in ";
  const size_t mid = message.find(kMissing);
  if (message.empty() || message[0] != '\'' || mid == std::string::npos) return {};
  const std::string property = message.substr(1, mid - 1);
  std::string parent = message.substr(mid + kMissing.size());
  // Some of tinygltf's messages quote the parent as `Parent'.
  std::erase_if(parent, [](char c) { return c == '`' || c == '\'' || c == '.' || c == ' '; });
  for (const MissingPlace& p : missingPlaces()) {
    if (p.parent != parent) continue;
    if (std::string found = firstWithout(doc, p.path, property, ""); !found.empty()) return found;
  }
  return {};
}

// The buffers[i].uri holding a data URI that `message` quotes: tinygltf's "Failed to decode 'uri'"
// quotes the URI (a truncated base64 payload, or one whose size is not byteLength), not the buffer.
std::string dataUriField(const std::string& message, const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("buffers") || !doc["buffers"].is_array()) return {};
  const auto& buffers = doc["buffers"];
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!buffers[i].is_object() || !buffers[i].contains("uri") || !buffers[i]["uri"].is_string()) continue;
    const std::string& uri = buffers[i]["uri"].get_ref<const std::string&>();
    if (uri.starts_with("data:") && message.find(uri) != std::string::npos) return fmt::format("buffers[{}].uri", i);
  }
  return {};
}

// The byte offset of a JSON syntax error: tinygltf says only "Failed to parse JSON object", while
// nlohmann's SAX parser stops at the byte it could not take. Every value is accepted and dropped.
class SyntaxErrorAt final : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::optional<uint64_t> offset;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  // `position` counts the bytes read, the offending one included.
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception&) override {
    offset = position > 0 ? position - 1 : 0;
    return false;
  }
};

std::optional<uint64_t> syntaxErrorOffset(std::span<const uint8_t> json) {
  SyntaxErrorAt sax;
  nlohmann::json::sax_parse(json.begin(), json.end(), &sax);
  return sax.offset;
}

// tinygltf's refusal as an error with a place: the buffer a file access or a data URI failed for,
// the object a missing property belongs to, or the byte of a syntax error; else the JSON as a whole.
Error tinygltfError(const std::string& file, const std::string& err, const FileAccess& access, std::span<const uint8_t> json) {
  if (auto refused = unsupportedRequired(requiredInJson(json), file)) return *refused;
  const bool io = !access.failure.empty() && !access.failedPath.empty();
  // tinygltf ends each of its messages with a newline: one line of them, the first one located.
  std::string message = io ? access.failure : err;
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  for (size_t nl = message.find('\n'); nl != std::string::npos; nl = message.find('\n', nl)) message.replace(nl, 1, "; ");
  if (message.empty()) message = "tinygltf refused the document without saying why";
  Error e = makeError(io ? ErrorCode::Io : ErrorCode::BadValue, shortenDataUris(message));
  e.file = file;
  if (io) {
    e.path = bufferField(json, access.failedPath);
    return e;
  }
  const auto doc = nlohmann::json::parse(json.begin(), json.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    e.path = "json";
    e.offset = syntaxErrorOffset(json);
    return e;
  }
  e.path = dataUriField(err, doc);
  if (e.path.empty()) e.path = missingPropertyPlace(err.substr(0, err.find('\n')), doc);
  if (e.path.empty()) e.path = "json";
  return e;
}

}  // namespace

Result<Document> loadDocument(const Source& source, ReadContext& ctx) {
  const auto bytes = source.bytes();
  Container c;
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "glTF", 4) == 0) {
    RP_ASSIGN(c, splitGlb(bytes, ctx));
  } else {
    c.json = bytes;
  }
  if (c.json.size() > std::numeric_limits<uint32_t>::max()) {
    return makeError(ErrorCode::TooLarge, "the JSON is larger than 4 GiB");
  }
  RP_CHECK(chargeJson(c.json, ctx));

  FileAccess access;
  access.ctx = &ctx;
  tinygltf::TinyGLTF loader;
  loader.SetStoreOriginalJSONForExtrasAndExtensions(true);
  loader.SetImageLoader(keepImageUndecoded, nullptr);
  loader.SetFsCallbacks(tinygltf::FsCallbacks{fileExists, expandNothing, readSibling, writeNothing, &access});
  Document doc;
  doc.file = source.name();
  std::string err, warn;
  bool ok = false;
  if (c.glb) {
    // tinygltf re-reads the container it was given; hand it exactly the checked chunks, with the BIN
    // chunk charged first (tinygltf copies it into buffers[0]).
    if (!ctx.budget().charge(c.bin.size())) return makeError(ErrorCode::TooLarge, ctx.budget().refusal(c.bin.size()));
    const uint8_t* start = bytes.data();
    const size_t glbLength = c.bin.empty() ? 20 + c.json.size() : static_cast<size_t>(c.bin.data() + c.bin.size() - start);
    // tinygltf takes the header's length as the end of the chunks it reads: when the file declares
    // more (chunks of unknown types after ours), it gets a copy ending at our last chunk instead.
    std::vector<uint8_t> trimmed;
    const uint8_t* glb = start;
    uint32_t declared = 0;
    std::memcpy(&declared, start + 8, 4);
    if (declared != glbLength) {
      if (!ctx.budget().charge(glbLength)) return makeError(ErrorCode::TooLarge, ctx.budget().refusal(glbLength));
      trimmed.assign(start, start + glbLength);
      const auto l = static_cast<uint32_t>(glbLength);
      std::memcpy(trimmed.data() + 8, &l, 4);
      glb = trimmed.data();
    }
    ok = loader.LoadBinaryFromMemory(&doc.model, &err, &warn, glb, static_cast<unsigned int>(glbLength), "");
    doc.bufferFileOffset.assign(doc.model.buffers.size(), std::nullopt);
    if (ok && !doc.model.buffers.empty() && doc.model.buffers[0].uri.empty() && !c.bin.empty()) doc.bufferFileOffset[0] = c.binOffset;
  } else {
    ok = loader.LoadASCIIFromString(&doc.model, &err, &warn, reinterpret_cast<const char*>(c.json.data()),
                                    static_cast<unsigned int>(c.json.size()), "");
    doc.bufferFileOffset.assign(doc.model.buffers.size(), std::nullopt);
  }
  if (!ok) return tinygltfError(source.name(), err, access, c.json);
  if (auto refused = unsupportedRequired(doc.model.extensionsRequired, source.name())) return *refused;
  doc.writtenByRigport = doc.model.asset.generator.rfind("rigport", 0) == 0;
  return doc;
}

nlohmann::json extrasOf(const std::string& extrasJson) {
  if (extrasJson.empty()) return nullptr;
  nlohmann::json j = nlohmann::json::parse(extrasJson, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return nullptr;
  return j;
}

}  // namespace rigport::gltf_in
