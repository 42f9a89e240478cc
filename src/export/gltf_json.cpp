#include "export/gltf_json.hpp"

#include <cmath>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace rigport::gltf {
namespace {

// Length of the longest prefix of s[i...] that begins a valid UTF-8 sequence (at most the whole
// sequence), and whether that prefix is the whole sequence. The second bytes of E0, ED, F0 and F4
// are narrowed so that overlong forms, surrogates and code points above U+10FFFF are refused.
struct Sequence {
  size_t length;
  bool complete;
};
Sequence sequenceAt(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) n = 3;
  else if (c >= 0xF0 && c <= 0xF4) n = 4;
  else return {0, false};
  if (c == 0xE0) lo = 0xA0;
  if (c == 0xED) hi = 0x9F;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F;
  size_t k = 1;
  for (; k < n && i + k < s.size(); ++k) {
    const unsigned char x = b(i + k);
    if (x < lo || x > hi) break;
    lo = 0x80;
    hi = 0xBF;
  }
  return {k, k == n};
}

// A number's text as fmt writes it, with ".0" when it has neither a point nor an exponent.
size_t withPoint(char* text, const char* end) {
  size_t n = static_cast<size_t>(end - text);
  for (size_t i = 0; i < n; ++i) {
    if (text[i] == '.' || text[i] == 'e') return n;
  }
  text[n++] = '.';
  text[n++] = '0';
  return n;
}

}  // namespace

size_t formatFloat(float v, char* out) { return withPoint(out, fmt::format_to(out, FMT_COMPILE("{}"), v)); }

std::string_view validUtf8(std::string_view s, std::string& scratch) {
  size_t i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const Sequence q = sequenceAt(s, i);
    if (!q.complete) break;
    i += q.length;
  }
  if (i == s.size()) return s;
  scratch.assign(s.substr(0, i));
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      scratch.push_back(s[i++]);
      continue;
    }
    const Sequence q = sequenceAt(s, i);
    if (q.complete) {
      scratch.append(s.substr(i, q.length));
    } else {
      scratch.append("\xEF\xBF\xBD");
    }
    i += q.length == 0 ? 1 : q.length;
  }
  return scratch;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  std::string scratch;
  const std::string_view v = validUtf8(k, scratch);
  writer_.Key(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  return *this;
}

void JsonWriter::string(std::string_view s) {
  std::string scratch;
  const std::string_view v = validUtf8(s, scratch);
  writer_.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

void JsonWriter::number(float v) {
  if (!std::isfinite(v)) {
    writer_.Null();
    return;
  }
  char text[32];
  writer_.RawValue(text, formatFloat(v, text), rapidjson::kNumberType);
}

void JsonWriter::number(double v) {
  if (!std::isfinite(v)) {
    writer_.Null();
    return;
  }
  if (const float f = static_cast<float>(v); static_cast<double>(f) == v) {
    number(f);
    return;
  }
  char text[40];
  writer_.RawValue(text, withPoint(text, fmt::format_to(text, FMT_COMPILE("{}"), v)), rapidjson::kNumberType);
}

void JsonWriter::floats(std::span<const float> values) {
  writer_.StartArray();
  for (const float v : values) number(v);
  writer_.EndArray();
}

void JsonWriter::uints(std::span<const uint32_t> values) {
  writer_.StartArray();
  for (const uint32_t v : values) writer_.Uint(v);
  writer_.EndArray();
}

template <class Json>
void JsonWriter::anyValue(const Json& v) {
  using T = nlohmann::json::value_t;
  switch (v.type()) {
    case T::null:
    case T::discarded:
      writer_.Null();
      return;
    case T::boolean: writer_.Bool(v.template get<bool>()); return;
    case T::number_integer: writer_.Int64(v.template get<int64_t>()); return;
    case T::number_unsigned: writer_.Uint64(v.template get<uint64_t>()); return;
    case T::number_float: number(v.template get<double>()); return;
    case T::string: string(v.template get_ref<const std::string&>()); return;
    case T::array:
      writer_.StartArray();
      for (const Json& e : v) anyValue(e);
      writer_.EndArray();
      return;
    case T::object:
      writer_.StartObject();
      for (auto it = v.begin(); it != v.end(); ++it) {
        key(it.key());
        anyValue(*it);
      }
      writer_.EndObject();
      return;
    case T::binary: {
      // No reader puts bytes in extras; written as nlohmann writes them, should one.
      const std::string text = v.dump(-1, ' ', false, Json::error_handler_t::replace);
      writer_.RawValue(text.data(), text.size(), rapidjson::kObjectType);
      return;
    }
  }
}

void JsonWriter::value(const nlohmann::json& v) { anyValue(v); }
void JsonWriter::value(const nlohmann::ordered_json& v) { anyValue(v); }

}  // namespace rigport::gltf
