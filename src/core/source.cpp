#include "core/source.hpp"

#include <fmt/format.h>

namespace rigport {

Result<std::shared_ptr<const Source>> Source::open(const std::string& path, uint64_t maxReadBytes) {
  RP_ASSIGN(platform::FileView file, platform::openFileView(path, kReadBelowBytes));
  // A file of at most kReadBelowBytes is always read (the readers' budget then names the field a
  // small limit runs out at); a larger one that is not mapped must fit the limit whole.
  if (!file.mapped() && file.bytes().size() > kReadBelowBytes && file.bytes().size() > maxReadBytes) {
    Error e = ioError(path, fmt::format("{} bytes: more than the {} bytes that may be read into memory", file.bytes().size(), maxReadBytes));
    e.code = ErrorCode::TooLarge;
    return e;
  }
  std::shared_ptr<Source> source(new Source());
  source->name_ = path;
  source->file_ = std::move(file);
  source->bytes_ = source->file_.bytes();
  return std::shared_ptr<const Source>(std::move(source));
}

void Source::release(std::span<const uint8_t> bytes) const { file_.release(bytes); }

std::shared_ptr<const Source> Source::fromBytes(std::vector<uint8_t> bytes, std::string name) {
  std::shared_ptr<Source> source(new Source());
  source->owned_ = std::move(bytes);
  source->bytes_ = source->owned_;
  source->name_ = std::move(name);
  return source;
}

std::shared_ptr<const Source> Source::viewOf(std::span<const uint8_t> bytes, std::string name) {
  std::shared_ptr<Source> source(new Source());
  source->bytes_ = bytes;
  source->name_ = std::move(name);
  return source;
}

}  // namespace rigport
