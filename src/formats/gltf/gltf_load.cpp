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

// Where a GLB's JSON gives buffers[0].byteLength, found by a SAX pass that counts the characters
// nlohmann's lexer reads (loadDocument() hands tinygltf the JSON with that length made 1, so that
// tinygltf does not copy the BIN chunk). Found only where that is all it changes: buffer 0 has no
// uri (it is the BIN chunk), its byteLength is an unsigned integer given once, "buffers" is given
// once, and no image lies in a buffer view (tinygltf hands those bytes to its image loader).
class BinLengthFinder final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit BinLengthFinder(const size_t& read) : read_(read) {}

  std::optional<size_t> end;  // one past the byteLength's last digit
  uint64_t value = 0;
  bool refused = false;

  bool null() override { return scalar(); }
  bool boolean(bool) override { return scalar(); }
  bool number_integer(number_integer_t) override { return scalar(); }
  bool number_unsigned(number_unsigned_t v) override {
    if (!element()) return false;
    if (atBinLength()) {
      // The lexer has read the number and the one character after it, which it keeps for the next token.
      end = read_ - 1;
      value = v;
    }
    return true;
  }
  bool number_float(number_float_t, const string_t&) override { return scalar(); }
  bool string(string_t&) override { return scalar(); }
  bool binary(binary_t&) override { return scalar(); }
  bool start_object(std::size_t) override {
    if (!element()) return false;
    path_.push_back(Level{false, 0, 0, {}});
    return true;
  }
  bool key(string_t& key) override {
    Level& top = path_.back();
    top.key = key;
    const bool root = path_.size() == 1, bufferZero = inBufferZero();
    if ((root && key == "buffers" && buffersSeen_++ > 0) || (bufferZero && key == "byteLength" && lengthsSeen_++ > 0) ||
        (bufferZero && key == "uri") || (inImage() && key == "bufferView")) {
      refused = true;
      return false;  // nothing more to learn: tinygltf keeps the BIN chunk
    }
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override {
    if (!element()) return false;
    path_.push_back(Level{true, 0, 0, {}});
    return true;
  }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    refused = true;
    return false;
  }

 private:
  struct Level {
    bool array;
    size_t next;   // arrays: the index the next element takes
    size_t index;  // arrays: the element being read
    std::string key;  // objects: the member being read
  };
  // A value starts: an array's element takes the next index. A value where the byteLength is,
  // other than an unsigned integer, refuses.
  bool element() {
    if (!path_.empty() && path_.back().array) path_.back().index = path_.back().next++;
    return true;
  }
  bool scalar() {
    element();
    if (atBinLength()) {
      refused = true;
      return false;
    }
    return true;
  }
  bool close() {
    path_.pop_back();
    return true;
  }
  bool inBufferZero() const {
    return path_.size() == 3 && path_[0].key == "buffers" && path_[1].array && path_[1].index == 0 && !path_[2].array;
  }
  bool atBinLength() const { return inBufferZero() && path_[2].key == "byteLength"; }
  bool inImage() const { return path_.size() == 3 && path_[0].key == "images" && path_[1].array && !path_[2].array; }

  const size_t& read_;
  std::vector<Level> path_;
  size_t buffersSeen_ = 0, lengthsSeen_ = 0;
};

// A character iterator that counts the characters read through it, for BinLengthFinder.
struct CountingIterator {
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  const char* at = nullptr;
  size_t* read = nullptr;
  reference operator*() const { return *at; }
  CountingIterator& operator++() {
    ++at;
    ++*read;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const CountingIterator& other) const { return at == other.at; }
  bool operator!=(const CountingIterator& other) const { return at != other.at; }
};

// The digits of buffers[0].byteLength in `json` ([first, end) and their value), where
// BinLengthFinder finds them and the text says so.
struct BinLengthDigits {
  size_t first = 0, end = 0;
  uint64_t value = 0;
};
std::optional<BinLengthDigits> binLengthDigits(std::span<const uint8_t> json) {
  size_t read = 0;
  BinLengthFinder finder(read);
  const char* text = reinterpret_cast<const char*>(json.data());
  nlohmann::json::sax_parse(CountingIterator{text, &read}, CountingIterator{text + json.size(), &read}, &finder);
  if (finder.refused || !finder.end || *finder.end > json.size()) return std::nullopt;
  BinLengthDigits d;
  d.end = *finder.end;
  d.first = d.end;
  while (d.first > 0 && text[d.first - 1] >= '0' && text[d.first - 1] <= '9') --d.first;
  // The digits found must be the value read (no sign, exponent or fraction around them).
  uint64_t value = 0;
  for (size_t i = d.first; i < d.end; ++i) value = value * 10 + static_cast<uint64_t>(text[i] - '0');
  if (d.first == d.end || d.end - d.first > 19 || value != finder.value) return std::nullopt;
  if (d.first > 0 && (text[d.first - 1] == '-' || text[d.first - 1] == '.')) return std::nullopt;
  d.value = value;
  return d;
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
    // tinygltf copies buffer 0 out of the BIN chunk (zeroed first, then copied: twice its bytes
    // written, for arrays rigport copies again). It is given a GLB whose buffer 0 is 1 byte long
    // instead (its byteLength's digits "1" and spaces, the JSON otherwise the same, so that its
    // errors' places are), and the reader takes the bytes from the chunk where they are.
    std::vector<uint8_t> lean;
    std::optional<BinLengthDigits> digits;
    // (A chunk tinygltf itself would refuse, one not a multiple of 4 bytes long, goes to it whole.)
    if (c.bin.size() >= 4 && c.bin.size() % 4 == 0 && glb == start) digits = binLengthDigits(c.json);
    if (digits && digits->value >= 1 && digits->value <= c.bin.size()) {
      const size_t jsonChunk = 8 + c.json.size();
      lean.resize(12 + jsonChunk + 8 + 4);
      std::memcpy(lean.data(), start, 12 + jsonChunk);  // header and JSON chunk as they are
      std::memset(lean.data() + 20 + digits->first, ' ', digits->end - digits->first);
      lean[20 + digits->first] = '1';
      const uint32_t binChunk = 4, binType = kChunkBin, total = static_cast<uint32_t>(lean.size());
      std::memcpy(lean.data() + 12 + jsonChunk, &binChunk, 4);
      std::memcpy(lean.data() + 12 + jsonChunk + 4, &binType, 4);
      std::memcpy(lean.data() + 12 + jsonChunk + 8, c.bin.data(), 4);
      std::memcpy(lean.data() + 8, &total, 4);
      ok = loader.LoadBinaryFromMemory(&doc.model, &err, &warn, lean.data(), total, "");
      if (ok && !doc.model.buffers.empty() && doc.model.buffers[0].uri.empty() && doc.model.buffers[0].data.size() == 1) {
        doc.binBuffer = c.bin.first(static_cast<size_t>(digits->value));
        doc.binBufferHere = true;
      } else {
        // Not as found (nothing known refuses it, but tinygltf is the judge): the whole chunk, as before.
        doc.model = tinygltf::Model();
        err.clear();
        warn.clear();
        digits.reset();
      }
    }
    if (!digits) ok = loader.LoadBinaryFromMemory(&doc.model, &err, &warn, glb, static_cast<unsigned int>(glbLength), "");
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
