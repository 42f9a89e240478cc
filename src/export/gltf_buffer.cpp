#include "export/gltf_buffer.hpp"

namespace rigport::gltf {

size_t BufferBuilder::allocate(size_t bytes) {
  const size_t offset = (bin_.size() + 3) & ~size_t{3};
  bin_.resize(offset + bytes);  // value-initialises: padding and the region are zero
  return offset;
}

uint32_t BufferBuilder::accessor(size_t offset, size_t byteLength, size_t count, ComponentType component,
                                 const char* type, ViewTarget target, Json min, Json max) {
  Json view = Json::object();
  view["buffer"] = 0;
  view["byteOffset"] = offset;
  view["byteLength"] = byteLength;
  if (target != ViewTarget::None) view["target"] = static_cast<uint32_t>(target);
  bufferViews_.push_back(std::move(view));

  Json acc = Json::object();
  acc["bufferView"] = bufferViews_.size() - 1;
  acc["componentType"] = static_cast<uint32_t>(component);
  acc["count"] = count;
  acc["type"] = type;
  if (!min.is_null()) acc["min"] = std::move(min);
  if (!max.is_null()) acc["max"] = std::move(max);
  accessors_.push_back(std::move(acc));
  return static_cast<uint32_t>(accessors_.size() - 1);
}

uint32_t BufferBuilder::copyAccessor(const void* data, size_t byteLength, size_t count, ComponentType component,
                                     const char* type, ViewTarget target, Json min, Json max) {
  const size_t offset = allocate(byteLength);
  if (byteLength > 0) std::memcpy(at(offset), data, byteLength);
  return accessor(offset, byteLength, count, component, type, target, std::move(min), std::move(max));
}

std::vector<uint8_t> BufferBuilder::takeBytes() {
  bin_.resize((bin_.size() + 3) & ~size_t{3});
  return std::move(bin_);
}

}  // namespace rigport::gltf
