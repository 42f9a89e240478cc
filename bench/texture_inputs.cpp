#include "texture_inputs.hpp"

#include <squish.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <random>

#include "core/byte_reader.hpp"
#include "formats/renderware/axes.hpp"
#include "formats/renderware/renderware.hpp"
#include "image/decode.hpp"
#include "support/txd_builder.hpp"

namespace rigport::bench {
namespace {

using Pixel = std::array<uint8_t, 4>;

uint8_t clamp8(double v) { return static_cast<uint8_t>(std::clamp(v, 0.0, 255.0)); }

// Value noise in [0, 1): a grid of random values `cell` pixels apart, bilinearly blended.
class ValueNoise {
 public:
  ValueNoise(uint32_t seed, uint32_t cells) : cells_(cells), grid_(size_t{cells + 1} * (cells + 1)) {
    std::mt19937 rng(seed);
    for (float& v : grid_) v = static_cast<float>(rng() % 4096) / 4096.0f;
  }
  // x, y in [0, 1].
  double at(double x, double y) const {
    const double gx = x * cells_, gy = y * cells_;
    const uint32_t ix = std::min(static_cast<uint32_t>(gx), cells_ - 1), iy = std::min(static_cast<uint32_t>(gy), cells_ - 1);
    const double fx = gx - ix, fy = gy - iy;
    auto g = [&](uint32_t a, uint32_t b) { return grid_[size_t{b} * (cells_ + 1) + a]; };
    return (g(ix, iy) * (1 - fx) + g(ix + 1, iy) * fx) * (1 - fy) + (g(ix, iy + 1) * (1 - fx) + g(ix + 1, iy + 1) * fx) * fy;
  }

 private:
  uint32_t cells_;
  std::vector<float> grid_;
};

std::vector<uint8_t> picture(uint32_t side, const std::function<Pixel(double, double)>& shade) {
  std::vector<uint8_t> rgba(size_t{side} * side * 4);
  for (uint32_t y = 0; y < side; ++y)
    for (uint32_t x = 0; x < side; ++x) {
      const Pixel p = shade((x + 0.5) / side, (y + 0.5) / side);
      std::copy(p.begin(), p.end(), rgba.begin() + 4 * (size_t{y} * side + x));
    }
  return rgba;
}

// Hand-painted look: a smooth two-colour gradient, a few flat shapes with soft (2-pixel) edges.
Pixel painted(double x, double y) {
  double r = 70 + 120 * y, g = 110 + 60 * std::sin(3 * x), b = 160 - 90 * y;
  const double shapes[][5] = {{0.3, 0.3, 0.18, 220, 180}, {0.7, 0.6, 0.22, 60, 200}, {0.45, 0.8, 0.12, 240, 90}};
  for (const auto& s : shapes) {
    const double d = std::hypot(x - s[0], y - s[1]) - s[2];
    const double w = std::clamp(0.5 - d * 512, 0.0, 1.0);
    r = r * (1 - w) + s[3] * w;
    g = g * (1 - w) + s[4] * w;
    b = b * (1 - w) + 40 * w;
  }
  if (std::fmod(x * 8, 1.0) < 0.04) r = g = b = 30;  // seams between painted panels
  return {clamp8(r), clamp8(g), clamp8(b), 255};
}

std::vector<GameTexture> build() {
  std::mt19937 grain(1);
  const ValueNoise coarse(2, 8), mid(3, 64), fine(4, 256), leaves(5, 24);
  auto photo = [&](double x, double y) -> Pixel {
    const double n = mid.at(x, y) * 40 + fine.at(x, y) * 20;
    return {clamp8(128 + 100 * std::sin(x * 10) + n + grain() % 7), clamp8(128 + 100 * std::cos(y * 13) + n + grain() % 7),
            clamp8((x + y) * 113 + grain() % 7), 255};
  };
  auto detail = [&](double x, double y) -> Pixel {
    const double n = coarse.at(x, y) * 0.5 + mid.at(x, y) * 0.3 + fine.at(x, y) * 0.2;
    return {clamp8(60 + 150 * n), clamp8(50 + 120 * n), clamp8(40 + 90 * n), 255};
  };
  auto foliage = [&](double x, double y) -> Pixel {
    const double n = leaves.at(x, y), a = std::clamp((n - 0.45) * 6, 0.0, 1.0);
    return {clamp8(40 + 80 * n), clamp8(90 + 120 * mid.at(x, y)), clamp8(30 + 40 * n), clamp8(255 * a)};
  };
  auto cutout = [&](double x, double y) -> Pixel {
    Pixel p = painted(x, y);
    p[3] = leaves.at(x, y) > 0.5 ? 255 : 0;
    return p;
  };
  using image::PixelLayout;
  struct Source {
    const char* name;
    uint32_t side;
    PixelLayout layout;
    std::function<Pixel(double, double)> shade;
  };
  const Source sources[] = {{"painted_dxt1_1024", 1024, PixelLayout::Dxt1, painted},   {"photo_dxt1_1024", 1024, PixelLayout::Dxt1, photo},
                            {"detail_dxt1_1024", 1024, PixelLayout::Dxt1, detail},     {"foliage_dxt5_1024", 1024, PixelLayout::Dxt5, foliage},
                            {"painted_dxt1_512", 512, PixelLayout::Dxt1, painted},     {"cutout_dxt1_512", 512, PixelLayout::Dxt1, cutout},
                            {"painted_8888_1024", 1024, PixelLayout::B8G8R8A8, painted}, {"photo_8888_1024", 1024, PixelLayout::B8G8R8A8, photo}};
  std::vector<GameTexture> textures;
  for (const Source& s : sources) {
    const std::vector<uint8_t> rgba = picture(s.side, s.shade);
    GameTexture t{s.name, s.layout, {}, {}};
    if (s.layout == PixelLayout::B8G8R8A8) {
      t.stored = rgba;
      for (size_t i = 0; i < t.stored.size(); i += 4) std::swap(t.stored[i], t.stored[i + 2]);
    } else {
      // Range fit: libsquish's quick end points; any fit gives blocks of at most 4 colours, which
      // is what the PNG writer sees of a DXT texture.
      const int flags = (s.layout == PixelLayout::Dxt5 ? squish::kDxt5 : squish::kDxt1) | squish::kColourRangeFit;
      const int side = static_cast<int>(s.side);
      t.stored.resize(static_cast<size_t>(squish::GetStorageRequirements(side, side, flags)));
      squish::CompressImage(rgba.data(), side, side, t.stored.data(), flags);
    }
    ByteReader r(t.stored);
    auto decoded = image::decodeLevel(r, s.layout, s.side, s.side, {}, s.name);
    if (!decoded) return {};
    t.decoded = std::move(*decoded);
    textures.push_back(std::move(t));
  }
  return textures;
}

}  // namespace

const std::vector<GameTexture>& gameTextures() {
  static const std::vector<GameTexture> textures = build();
  return textures;
}

const std::vector<uint8_t>& texturedDff() {
  static const std::vector<uint8_t> bytes = [] {
    Rig rig;
    rig.provenance.axes = renderware::kRenderWareAxes;
    Bone root;
    root.name = "root";
    rig.skeleton.bones.push_back(root);
    for (const GameTexture& t : gameTextures()) {
      if (t.layout == image::PixelLayout::B8G8R8A8) continue;
      Mesh mesh;
      mesh.name = t.name;
      const uint32_t side = 32;  // a grid of side² vertices
      for (uint32_t y = 0; y < side; ++y)
        for (uint32_t x = 0; x < side; ++x) {
          const float u = static_cast<float>(x) / (side - 1), v = static_cast<float>(y) / (side - 1);
          mesh.positions.emplace_back(u, v, static_cast<float>(rig.meshes.size()));
          mesh.normals.emplace_back(0.0f, 0.0f, 1.0f);
          mesh.uvs.emplace_back(u, v);
        }
      for (uint32_t y = 0; y + 1 < side; ++y)
        for (uint32_t x = 0; x + 1 < side; ++x) {
          const uint32_t a = y * side + x;
          mesh.indices.insert(mesh.indices.end(), {a, a + 1, a + side, a + 1, a + side + 1, a + side});
        }
      mesh.parts = {MeshPart{static_cast<uint32_t>(rig.materials.size()), 0, static_cast<uint32_t>(mesh.indices.size())}};
      Material m;
      m.name = t.name;
      m.textures = {t.name};
      rig.materials.push_back(std::move(m));
      rig.meshes.push_back(std::move(mesh));
    }
    auto dff = renderware::writeDff(rig);
    return dff ? std::move(*dff) : std::vector<uint8_t>{};
  }();
  return bytes;
}

const std::vector<uint8_t>& texturedTxd() {
  static const std::vector<uint8_t> bytes = [] {
    std::vector<test::TxdRaster> rasters;
    for (const GameTexture& t : gameTextures()) {
      if (t.layout == image::PixelLayout::B8G8R8A8) continue;
      const bool dxt5 = t.layout == image::PixelLayout::Dxt5;
      test::TxdRaster r;
      r.name = t.name;
      r.rasterFormat = (dxt5 ? 0x0300 : 0x0100) | 0x8000;
      r.alphaOrD3dFormat = dxt5 ? 0x35545844 : 0x31545844;  // D3D9 FourCC DXT5, DXT1
      r.compressionOrFlags = 8 | 1;                           // compressed, has alpha
      r.width = r.height = static_cast<uint16_t>(t.decoded.width);
      r.depth = 16;
      r.levels = {t.stored};
      rasters.push_back(std::move(r));
    }
    return test::writeTxd(rasters);
  }();
  return bytes;
}

}  // namespace rigport::bench
