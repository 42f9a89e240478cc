// Error and Result<T>: how every reader, writer and exporter reports failure.
// A malformed file is a normal outcome, so nothing here throws (STYLE.md §"What rigport takes", 1-2).
// An error is a trail read from the outside in: the frames a container added on the way down
// (package entry -> resource -> decompressed stream) and, last, the field path and byte offset
// where the innermost reader stopped. Each frame's offset is relative to the bytes that frame
// describes (the file for the first, the decompressed resource for a frame inside it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace rigport {

enum class ErrorCode {
  Truncated,    // a read needed more bytes than remain
  BadValue,     // a field holds a value the format does not allow
  Unsupported,  // valid for the format, but a variant rigport cannot read (e.g. a native platform)
  TooLarge,     // a count or size beyond what the remaining bytes or a limit allow
  Io,           // the file system refused
  Invalid,      // a rig model breaks its own invariants (validate())
  Usage,        // the caller asked for something impossible (wrong format, missing skeleton)
};

const char* errorCodeName(ErrorCode code);

// `text` safe to print on a terminal: every control character (C0, DEL, and C1 in its UTF-8
// form), and every byte that is not part of valid UTF-8, becomes \xNN; the rest, non-ASCII
// letters included, is kept. Names and strings come from files, and a file must not drive the
// terminal that shows its errors (issue 25: an ESC in a clip name). Idempotent.
std::string printable(std::string_view text);

// One step of an error's trail: where (a container entry, a resource, a field path) and the byte
// offset of that place in the bytes it belongs to.
struct ErrorFrame {
  std::string where;
  std::optional<uint64_t> offset;
};

struct Error {
  ErrorCode code = ErrorCode::BadValue;
  std::string message;               // what went wrong, without location
  std::string path;                  // innermost field path, e.g. "Clump/GeometryList/Geometry[0]/SkinPlg/numBones"
  std::optional<uint64_t> offset;    // innermost byte offset (in the bytes of the last outer frame, or the file)
  std::string file;                  // filled in by whoever knows the file name
  std::vector<ErrorFrame> outer;     // frames outside the innermost one, outermost first

  // The whole trail, outside in: `outer`, then {path, offset}.
  std::vector<ErrorFrame> trail() const;
  // Adds a frame outside every frame so far: a container calls it on an inner reader's error.
  Error& within(ErrorFrame frame);
  // "file: entry 3 (at 0x40) > Clump/Geometry[0]: message (at 0x1A2C)" — one line, for humans and
  // logs, every part printable().
  std::string describe() const;
};

// A minimal expected<T, Error>: g++ 12 has no std::expected.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}      // NOLINT(google-explicit-constructor)

  explicit operator bool() const { return v_.index() == 0; }
  bool ok() const { return v_.index() == 0; }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  T& operator*() & { return std::get<0>(v_); }
  const T& operator*() const& { return std::get<0>(v_); }
  T&& operator*() && { return std::get<0>(std::move(v_)); }
  const Error& error() const { return std::get<1>(v_); }
  Error& error() { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

struct Ok {};
using Status = Result<Ok>;

inline Error makeError(ErrorCode code, std::string message) {
  Error e;
  e.code = code;
  e.message = std::move(message);
  return e;
}

// An ErrorCode::Io error about the file at `path` (the file system refused to open, read or write it).
inline Error ioError(std::string path, std::string message) {
  Error e = makeError(ErrorCode::Io, std::move(message));
  e.file = std::move(path);
  return e;
}

// An ErrorCode::Invalid error about the model element at `path` (e.g. "meshes[0]/indices[7]").
inline Error invalidModel(std::string path, std::string message) {
  Error e = makeError(ErrorCode::Invalid, std::move(message));
  e.path = std::move(path);
  return e;
}

}  // namespace rigport

// RP_ASSIGN(lhs, expr): evaluates a Result; on error returns the error from the enclosing function,
// otherwise moves the value into `lhs`, a declaration (`auto x`, `const Rig rig`) or an lvalue
// (`v.emplace_back()`). A statement, not an expression, so that it is ISO C++: the value is named
// by a hidden variable unique to the line (one RP_ASSIGN per line).
#define RP_CONCAT_INNER_(a, b) a##b
#define RP_CONCAT_(a, b) RP_CONCAT_INNER_(a, b)
#define RP_ASSIGN(lhs, ...) RP_ASSIGN_WITH_(RP_CONCAT_(rp_result_, __LINE__), lhs, __VA_ARGS__)
#define RP_ASSIGN_WITH_(result, lhs, ...)         \
  auto result = (__VA_ARGS__);                   \
  if (!result) return std::move(result.error()); \
  lhs = std::move(result).value()

// RP_CHECK(expr): for calls whose value (a Status, or any Result) is not needed.
#define RP_CHECK(...)                                          \
  do {                                                         \
    auto rp_check_result_ = (__VA_ARGS__);                     \
    if (!rp_check_result_) return std::move(rp_check_result_.error()); \
  } while (0)
