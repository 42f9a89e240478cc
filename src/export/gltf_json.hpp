// The glTF JSON written as a stream (RapidJSON's Writer into the std::string the GLB writes), not
// built as a tree first: a clip package's nodes, extras and animations as nlohmann objects cost
// more than the keys they describe. Numbers the model holds as float are written as the shortest
// text that reads back to the same float32 (fmt's `{}` on a float), not as the double they widen to
// (`0.1`, not `0.10000000149011612`; formatFloat). Strings from game files that are not UTF-8 have each bad
// sequence replaced by U+FFFD, as nlohmann's dump(..., error_handler_t::replace) did.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <rapidjson/writer.h>

namespace rigport::gltf {

// `v` (finite) as the shortest text that reads back to the same float32, with ".0" after one that
// would read as an integer (nlohmann wrote floats so too, and a reader that tells the JSON types
// apart keeps it a float); into `out` (at least 32 chars); returns the length.
size_t formatFloat(float v, char* out);

// RapidJSON's output stream over a std::string, through a buffer of its own: a character at a time
// into the string was a sixth of a clip package's conversion. RapidJSON flushes it when a
// top-level value ends; JsonWriter's destructor does too.
class StringOutput {
 public:
  using Ch = char;
  explicit StringOutput(std::string& out) : out_(out) {}
  void Put(char c) {
    if (used_ == sizeof buffer_) Flush();
    buffer_[used_++] = c;
  }
  void Flush() {
    out_.append(buffer_, used_);
    used_ = 0;
  }
  // Text as it is, after what was put before it.
  void append(std::string_view text) {
    if (text.size() <= sizeof buffer_ - used_) {  // a short piece (a channel record) joins the buffer
      std::memcpy(buffer_ + used_, text.data(), text.size());
      used_ += text.size();
      return;
    }
    Flush();
    out_.append(text);
  }

 private:
  std::string& out_;
  size_t used_ = 0;
  char buffer_[4096];
};

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : stream_(out), writer_(stream_) {}
  ~JsonWriter() { stream_.Flush(); }
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void startObject() { writer_.StartObject(); }
  void endObject() { writer_.EndObject(); }
  void startArray() { writer_.StartArray(); }
  void endArray() { writer_.EndArray(); }
  // A member's key; the value follows with one of the calls below. A literal is rigport's own
  // ASCII key, put as it is (verbatim); any other is checked as a string is.
  template <size_t N>
  JsonWriter& key(const char (&k)[N]) {
    verbatim({k, N - 1});
    return *this;
  }
  JsonWriter& key(std::string_view k);
  void string(std::string_view s);
  void boolean(bool b) { writer_.Bool(b); }
  void uint(uint64_t v) { writer_.Uint64(v); }
  void integer(int64_t v) { writer_.Int64(v); }
  // null when not finite: JSON has no NaN or infinity (as nlohmann wrote them).
  void number(float v);
  // A double that is a float exactly (a float the model widened) as that float, else shortest
  // double text.
  void number(double v);
  void floats(std::span<const float> values);  // an array
  void uints(std::span<const uint32_t> values);  // an array
  // Any value of the model's extras, or of the exporter's own small trees (meshes, materials),
  // members in the tree's order.
  void value(const nlohmann::json& v);
  void value(const nlohmann::ordered_json& v);
  // A value already written as JSON text (`json` must be one whole value, or array elements
  // with their commas): the writer puts the comma before it, the text is appended whole.
  void raw(std::string_view json) {
    writer_.RawValue(json.data(), 0, rapidjson::kObjectType);
    stream_.append(json);
  }

 private:
  template <class Json>
  void anyValue(const Json& v);  // gltf_json.cpp, for the two value() above
  // A key of printable ASCII without '"' or '\\' (the exporter's own literals), which JSON writes as
  // it is: put whole, where RapidJSON's Key() checks and escapes it a character at a time.
  // RawValue with no text and kStringType is how RapidJSON is told a key came: it writes the comma
  // that goes before it and counts it, so the value that follows gets its colon
  // (tests/gltf_json_test.cpp, LiteralAndCheckedKeysGiveTheSameText).
  void verbatim(std::string_view ascii) {
    assert(std::all_of(ascii.begin(), ascii.end(), [](char c) { return c >= 0x20 && c < 0x7F && c != '"' && c != '\\'; }));
    writer_.RawValue(ascii.data(), 0, rapidjson::kStringType);
    stream_.Put('"');
    stream_.append(ascii);
    stream_.Put('"');
  }

  StringOutput stream_;
  rapidjson::Writer<StringOutput> writer_;
};

// `s` as valid UTF-8: itself when it is, else a copy in `scratch` with each maximal bad subpart
// replaced by U+FFFD (Unicode's "substitution of maximal subparts", nlohmann's replace rule).
std::string_view validUtf8(std::string_view s, std::string& scratch);

// Writes an extras object: the members of `model` (the model's extras; none unless an object), in
// its order, each of `ours` in place of the model's member of the same key, then the rest of
// `ours` in their order (rigport's own keys win a clash, so a reader cannot hide what the exporter
// reports). `writeOurs(w, i)` writes the value of ours[i]. Writes nothing when there is no member:
// the caller writes `key` first only through this (the key is written here).
template <class WriteOurs>
void writeExtras(JsonWriter& w, std::string_view key, const nlohmann::json& model, std::span<const std::string_view> ours,
                 WriteOurs&& writeOurs) {
  const bool hasModel = model.is_object() && !model.empty();
  if (!hasModel && ours.empty()) return;
  w.key(key).startObject();
  if (hasModel) {
    for (auto it = model.begin(); it != model.end(); ++it) {
      w.key(it.key());
      size_t i = 0;
      while (i < ours.size() && ours[i] != it.key()) ++i;
      if (i < ours.size()) {
        writeOurs(w, i);
      } else {
        w.value(*it);
      }
    }
  }
  for (size_t i = 0; i < ours.size(); ++i) {
    if (hasModel && model.contains(ours[i])) continue;
    w.key(ours[i]);
    writeOurs(w, i);
  }
  w.endObject();
}

}  // namespace rigport::gltf
