// The inputs of the three.js texture check (tools/texture_render_test.mjs, issue 29 "what it must
// show"): for every pixel format each texture reader decodes, a model file of one upright quad facing
// +Z (in glTF's axes; each writer turns it into its format's) whose material names a texture of four
// coloured quadrants (render/quad_pattern.hpp), that texture in the format's own file beside it, and
// the demo character as a DFF whose TXD paints the front and back of its tubes apart. Writes
// DIR/manifest.json: each case's input, what `rigport convert` makes of it, and the colours the
// rendered quadrants (or the character's probes) must show.
//   render_texture_quads DIR
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <glm/glm.hpp>
#include <nlohmann/json.hpp>
#include <squish.h>

#include "demo/character.hpp"
#include "formats/battleforge/battleforge.hpp"
#include "formats/renderware/renderware.hpp"
#include "formats/sluggers/sluggers.hpp"
#include "render/quad_pattern.hpp"
#include "support/dds_builder.hpp"
#include "support/gx_builder.hpp"
#include "support/quad_rig.hpp"
#include "support/rw4_texture_builder.hpp"
#include "support/txd_builder.hpp"

using namespace rigport;
using namespace rigport::test::render;
namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

struct Output {
  fs::path root;
  Json cases = Json::array();
};

void writeFile(const fs::path& path, const std::vector<uint8_t>& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

template <typename T>
std::vector<uint8_t> written(const Result<T>& r, const std::string& what) {
  if (!r.ok()) {
    std::fprintf(stderr, "%s: %s\n", what.c_str(), r.error().describe().c_str());
    std::exit(1);
  }
  return *r;
}

Json colours(const Quadrants& q) {
  Json out = Json::array();
  for (const Rgba& c : q) out.push_back({c[0], c[1], c[2], c[3]});
  return out;
}

void addCase(Output& out, const std::string& format, const std::string& pixelFormat, const fs::path& input, const std::string& makes,
             const Quadrants& expected) {
  out.cases.push_back({{"format", format},
                       {"pixelFormat", pixelFormat},
                       {"input", fs::relative(input, out.root).generic_string()},
                       {"makes", makes},
                       {"quadrants", colours(expected)}});
}

// --- RenderWare TXD (D3D9 rasters, librw's d3d9.cpp layout) beside a DFF -------------------------

void txdCase(Output& out, const std::string& pixelFormat, test::TxdRaster raster, const Quadrants& expected) {
  raster.name = "quad";
  raster.width = raster.height = kSide;
  Material m;
  m.name = "quad";
  m.textures = {"quad"};
  const fs::path dir = out.root / "renderware-txd" / pixelFormat;
  writeFile(dir / "quad.dff", written(renderware::writeDff(test::quadRig(m, true)), "quad.dff"));
  writeFile(dir / "quad.txd", test::writeTxd({raster}));
  addCase(out, "renderware-txd", pixelFormat, dir / "quad.dff", "glb", expected);
}

void txdCases(Output& out) {
  struct Dxt {
    const char* name;
    int flags;
    uint32_t rasterFormat, fourCc;
    bool alpha;
  };
  for (const Dxt& d : {Dxt{"DXT1", squish::kDxt1, 0x0100, 0x31545844, false}, Dxt{"DXT3", squish::kDxt3, 0x0300, 0x33545844, true},
                       Dxt{"DXT5", squish::kDxt5, 0x0300, 0x35545844, true}}) {
    const Quadrants q = colourPattern(d.alpha);
    test::TxdRaster r;
    r.rasterFormat = d.rasterFormat;
    r.alphaOrD3dFormat = d.fourCc;
    r.compressionOrFlags = d.alpha ? 9 : 8;  // D3D9: 8 compressed, 1 has alpha
    r.depth = 16;
    r.levels = {dxt(q, d.flags)};
    txdCase(out, d.name, r, quantised(q, {5, 6, 5, d.flags == squish::kDxt3 ? 4 : 8}));
  }
  struct Lossless {
    const char* name;
    uint32_t rasterFormat, d3dFormat;
    Masks masks;
    size_t bytes;
  };
  const Lossless formats[] = {
      {"8888", 0x0500, 21, {0xFF0000, 0xFF00, 0xFF, 0xFF000000}, 4}, {"888", 0x0600, 22, {0xFF0000, 0xFF00, 0xFF, 0}, 4},
      {"1555", 0x0100, 25, {0x7C00, 0x3E0, 0x1F, 0x8000}, 2},        {"565", 0x0200, 23, {0xF800, 0x7E0, 0x1F, 0}, 2},
      {"4444", 0x0300, 26, {0xF00, 0xF0, 0xF, 0xF000}, 2},
  };
  for (const Lossless& f : formats) {
    const Depth depth = depthOf(f.masks);
    const Quadrants q = colourPattern(depth.a >= 3);
    test::TxdRaster r;
    r.rasterFormat = f.rasterFormat;
    r.alphaOrD3dFormat = f.d3dFormat;
    r.depth = static_cast<uint8_t>(8 * f.bytes);
    r.levels = {packMasked(q, f.masks, f.bytes)};
    txdCase(out, f.name, r, quantised(q, depth));
  }
  const Quadrants grey = greyPattern(false, false);
  test::TxdRaster lum;
  lum.rasterFormat = 0x0400;
  lum.alphaOrD3dFormat = 50;  // D3DFMT_L8
  lum.depth = 8;
  lum.levels = {packMasked(grey, {0xFF, 0, 0, 0}, 1)};
  txdCase(out, "LUM8", lum, grey);
  // Palettes: RGBA entries (librw), one index byte a pixel; PAL4 has 32 entries (README).
  for (const auto& [name, format, entries, depth] : {std::tuple{"PAL8", 0x2500u, 256u, 8}, std::tuple{"PAL4", 0x4500u, 32u, 4}}) {
    const Quadrants q = colourPattern(true);
    test::TxdRaster r;
    r.rasterFormat = format;
    r.alphaOrD3dFormat = 41;  // D3DFMT_P8
    r.depth = static_cast<uint8_t>(depth);
    r.palette.assign(size_t{entries} * 4, 0);
    for (size_t i = 0; i < 4; ++i) std::copy(q[i].begin(), q[i].end(), r.palette.begin() + static_cast<std::ptrdiff_t>(4 * i));
    std::vector<uint8_t> indices;
    for (uint32_t y = 0; y < kSide; ++y)
      for (uint32_t x = 0; x < kSide; ++x) indices.push_back(static_cast<uint8_t>(quadrantOf(x, y)));
    r.levels = {indices};
    txdCase(out, name, r, q);
  }
}

// --- BattleForge: DDS beside a DRS whose material names it as its _col map ------------------------

void ddsCase(Output& out, const std::string& pixelFormat, test::DdsImage image, const Quadrants& expected) {
  Material m;
  m.name = "quad_col";
  m.extras["battleforge"]["maps"] = {{"_col", "quad_col"}};
  const fs::path dir = out.root / "battleforge-dds" / pixelFormat;
  writeFile(dir / "quad.drs", written(battleforge::writeDrs(test::quadRig(m, true)), "quad.drs"));
  image.mipMapCount = 1;
  writeFile(dir / "quad_col.dds", test::writeDds(image));
  addCase(out, "dds", pixelFormat, dir / "quad.drs", "glb", expected);
}

void ddsCases(Output& out) {
  for (const auto& [name, dxtNumber, flags] : {std::tuple{"DXT1", 1, squish::kDxt1}, std::tuple{"DXT3", 3, squish::kDxt3}, std::tuple{"DXT5", 5, squish::kDxt5}}) {
    const Quadrants q = colourPattern(dxtNumber != 1);
    test::DdsImage d = test::dxtDds(dxtNumber, kSide, kSide);
    d.levels = {dxt(q, flags)};
    ddsCase(out, name, d, quantised(q, {5, 6, 5, dxtNumber == 3 ? 4 : 8}));
  }
  // Direct3D's uncompressed layouts as DDS_PIXELFORMAT states them (flags 0x40 RGB, 0x1 alpha
  // pixels, 0x20000 luminance).
  struct Layout {
    const char* name;
    uint32_t flags, bits;
    Masks masks;
  };
  const Layout layouts[] = {
      {"A8R8G8B8", 0x41, 32, {0xFF0000, 0xFF00, 0xFF, 0xFF000000}}, {"X8R8G8B8", 0x40, 32, {0xFF0000, 0xFF00, 0xFF, 0}},
      {"A8B8G8R8", 0x41, 32, {0xFF, 0xFF00, 0xFF0000, 0xFF000000}}, {"X8B8G8R8", 0x40, 32, {0xFF, 0xFF00, 0xFF0000, 0}},
      {"R8G8B8", 0x40, 24, {0xFF0000, 0xFF00, 0xFF, 0}},            {"R5G6B5", 0x40, 16, {0xF800, 0x7E0, 0x1F, 0}},
      {"A1R5G5B5", 0x41, 16, {0x7C00, 0x3E0, 0x1F, 0x8000}},        {"A4R4G4B4", 0x41, 16, {0xF00, 0xF0, 0xF, 0xF000}},
      {"L8", 0x20000, 8, {0xFF, 0, 0, 0}},
  };
  for (const Layout& f : layouts) {
    const bool grey = f.flags == 0x20000;
    const Depth depth = grey ? Depth{8, 8, 8, 0} : depthOf(f.masks);
    const Quadrants q = grey ? greyPattern(false, false) : colourPattern(depth.a >= 3);
    test::DdsImage d;
    d.width = d.height = kSide;
    d.pixelFlags = f.flags;
    d.bitCount = f.bits;
    d.rMask = f.masks.r, d.gMask = f.masks.g, d.bMask = f.masks.b, d.aMask = f.masks.a;
    d.levels = {packMasked(q, f.masks, f.bits / 8)};
    ddsCase(out, f.name, d, quantised(q, depth));
  }
}

// --- Mario Super Sluggers: a model block with a TEX section, its material bound to texture 0 -----

void gxCase(Output& out, const std::string& pixelFormat, test::TexEntry entry, const Quadrants& expected) {
  entry.width = entry.height = kSide;
  Material m;
  m.name = "texture0";
  m.extras["sluggers"]["texture"] = 0u;  // unsigned, as JSON reads it back: the writer takes no signed index
  const fs::path dir = out.root / "sluggers-model" / pixelFormat;
  writeFile(dir / "quad.sluggers", test::withTex(written(sluggers::writeModel(test::quadRig(m, false)), "quad.sluggers"), test::writeTex({entry})));
  addCase(out, "sluggers-model", pixelFormat, dir / "quad.sluggers", "glb", expected);
}

// The stored GX value of one colour (Dolphin's TextureDecoder rules, sluggers.md §5).
uint32_t level(uint8_t v, int bits) { return (v * ((1u << bits) - 1) + 127) / 255; }
uint32_t rgb565(const Rgba& c) { return level(c[0], 5) << 11 | level(c[1], 6) << 5 | level(c[2], 5); }
// RGB5A3: top bit set, an opaque RGB555; clear, A3 then RGB444.
uint32_t rgb5a3(const Rgba& c) {
  if (c[3] == 255) return 0x8000 | level(c[0], 5) << 10 | level(c[1], 5) << 5 | level(c[2], 5);
  return level(c[3], 3) << 12 | level(c[0], 4) << 8 | level(c[1], 4) << 4 | level(c[2], 4);
}
Depth rgb5a3Depth(const Rgba& c) { return c[3] == 255 ? Depth{5, 5, 5, 8} : Depth{4, 4, 4, 3}; }
Quadrants rgb5a3Expected(const Quadrants& q) {
  Quadrants out{};
  for (size_t i = 0; i < 4; ++i) out[i] = quantised(q[i], rgb5a3Depth(q[i]));
  return out;
}

std::vector<uint32_t> values(const Quadrants& q, uint32_t (*value)(const Rgba&)) {
  std::vector<uint32_t> out;
  for (uint32_t y = 0; y < kSide; ++y)
    for (uint32_t x = 0; x < kSide; ++x) out.push_back(value(q[quadrantOf(x, y)]));
  return out;
}

void gxCases(Output& out) {
  const Quadrants intensity = greyPattern(true, false), greyAlpha = greyPattern(false, true), colour = colourPattern(true),
                  opaque = colourPattern(false);
  const auto entry = [](uint8_t format) {
    test::TexEntry e;
    e.format = format;
    return e;
  };
  test::TexEntry e = entry(0);  // I4: intensity in 4 bits, alpha the same
  e.image = test::gxTiles(0, kSide, kSide, values(intensity, [](const Rgba& c) { return level(c[0], 4); }));
  gxCase(out, "I4", e, quantised(intensity, {4, 4, 4, 4}));
  e = entry(1);
  e.image = test::gxTiles(1, kSide, kSide, values(intensity, [](const Rgba& c) { return uint32_t{c[0]}; }));
  gxCase(out, "I8", e, intensity);
  e = entry(2);  // IA4: alpha in the high nibble
  e.image = test::gxTiles(2, kSide, kSide, values(greyAlpha, [](const Rgba& c) { return level(c[3], 4) << 4 | level(c[0], 4); }));
  gxCase(out, "IA4", e, quantised(greyAlpha, {4, 4, 4, 4}));
  e = entry(3);  // IA8: alpha byte, then intensity
  e.image = test::gxTiles(3, kSide, kSide, values(greyAlpha, [](const Rgba& c) { return uint32_t{c[3]} << 8 | c[0]; }));
  gxCase(out, "IA8", e, greyAlpha);
  e = entry(4);
  e.image = test::gxTiles(4, kSide, kSide, values(opaque, rgb565));
  gxCase(out, "RGB565", e, quantised(opaque, {5, 6, 5, 0}));
  e = entry(5);
  e.image = test::gxTiles(5, kSide, kSide, values(colour, rgb5a3));
  gxCase(out, "RGB5A3", e, rgb5a3Expected(colour));
  e = entry(6);
  std::vector<std::array<uint8_t, 4>> rgba;
  for (uint32_t y = 0; y < kSide; ++y)
    for (uint32_t x = 0; x < kSide; ++x) rgba.push_back(colour[quadrantOf(x, y)]);
  e.image = test::gxRgba8(kSide, kSide, rgba);
  gxCase(out, "RGBA8", e, colour);
  // CMPR: every 4x4 block flat, its colour as end point 0 (four-colour mode: c0 > c1 = 0).
  e = entry(14);
  std::vector<test::CmprBlock> blocks;
  for (uint32_t by = 0; by < kSide / 4; ++by)
    for (uint32_t bx = 0; bx < kSide / 4; ++bx) blocks.push_back(test::CmprBlock{static_cast<uint16_t>(rgb565(opaque[quadrantOf(4 * bx, 4 * by)])), 0, {}});
  e.image = test::gxCmpr(kSide, kSide, blocks);
  gxCase(out, "CMPR", e, quantised(opaque, {5, 6, 5, 0}));
  // C4 and C8: the quadrant's index into an RGB5A3 palette (GXTlutFmt 2).
  for (const auto& [name, format, entries] : {std::tuple{"C4", uint8_t(8), 16u}, std::tuple{"C8", uint8_t(9), 256u}}) {
    e = entry(format);
    e.paletteFormat = 2;
    e.palette.assign(entries, 0);
    for (size_t i = 0; i < 4; ++i) e.palette[i] = static_cast<uint16_t>(rgb5a3(colour[i]));
    std::vector<uint32_t> indices;
    for (uint32_t y = 0; y < kSide; ++y)
      for (uint32_t x = 0; x < kSide; ++x) indices.push_back(static_cast<uint32_t>(quadrantOf(x, y)));
    e.image = test::gxTiles(format, kSide, kSide, indices);
    gxCase(out, name, e, rgb5a3Expected(colour));
  }
}

// --- RenderWare 4 (Skate 3 PS3 Texture, Spore PC Raster objects): a texture arena; `convert` writes its PNG

// `ps3`: a Skate 3 arena (.psg, TableOfContents naming the texture); else Spore's PC arena (.rw4).
void rw4Case(Output& out, const std::string& pixelFormat, test::Rw4Texture t, const Quadrants& expected, bool ps3 = true) {
  t.width = t.height = kSide;
  if (ps3) {
    t.tocName = "0x0000000000000001.Texture";
    t.guid = 1;
  }
  const std::string name = ps3 ? "PS3 " + pixelFormat : "Spore " + pixelFormat, file = ps3 ? "quad.psg" : "quad.rw4";
  const fs::path dir = out.root / "rw4-arena" / (ps3 ? "ps3" : "spore") / pixelFormat;
  writeFile(dir / file, test::writeTextureArena({t}, ps3));
  addCase(out, "rw4-arena", name, dir / file, "png", expected);
}

// A, R, G, B bytes a texel (big-endian A8R8G8B8), in rows or in the RSX's Morton order: texel (x, y)
// at the index whose bits interleave x's and y's, x first (rw4_arena.md §3.2).
std::vector<uint8_t> argb(const Quadrants& q, bool swizzled) {
  std::vector<uint8_t> out(size_t{kSide} * kSide * 4);
  for (uint32_t y = 0; y < kSide; ++y) {
    for (uint32_t x = 0; x < kSide; ++x) {
      size_t index = size_t{y} * kSide + x;
      if (swizzled) {
        index = 0;
        for (int bit = 0; (1u << bit) < kSide; ++bit) index |= size_t{(x >> bit) & 1} << (2 * bit) | size_t{(y >> bit) & 1} << (2 * bit + 1);
      }
      const Rgba& c = q[quadrantOf(x, y)];
      std::copy_n(std::array<uint8_t, 4>{c[3], c[0], c[1], c[2]}.begin(), 4, out.begin() + static_cast<std::ptrdiff_t>(4 * index));
    }
  }
  return out;
}

void rw4Cases(Output& out) {
  for (const auto& [name, gcm, flags] : {std::tuple{"DXT1", uint8_t(0x86), squish::kDxt1}, std::tuple{"DXT3", uint8_t(0x87), squish::kDxt3},
                                         std::tuple{"DXT5", uint8_t(0x88), squish::kDxt5}}) {
    const Quadrants q = colourPattern(flags != squish::kDxt1);
    test::Rw4Texture t;
    t.format = gcm;
    t.levels = {dxt(q, flags)};
    rw4Case(out, name, t, quantised(q, {5, 6, 5, flags == squish::kDxt3 ? 4 : 8}));
  }
  const Quadrants q = colourPattern(true);
  for (const auto& [name, gcm, swizzled] : {std::tuple{"A8R8G8B8 linear", uint8_t(0xA5), false}, std::tuple{"A8R8G8B8 swizzled", uint8_t(0x85), true}}) {
    test::Rw4Texture t;
    t.format = gcm;
    t.levels = {argb(q, swizzled)};
    rw4Case(out, name, t, q);
  }
  // Spore's Raster: a D3DFORMAT, DXT or little-endian A8R8G8B8 / X8R8G8B8 (B, G, R, A|X bytes).
  for (const auto& [name, fourCc, flags] : {std::tuple{"DXT1", 0x31545844u, squish::kDxt1}, std::tuple{"DXT5", 0x35545844u, squish::kDxt5}}) {
    const Quadrants c = colourPattern(flags != squish::kDxt1);
    test::Rw4Texture t;
    t.d3dFormat = fourCc;
    t.levels = {dxt(c, flags)};
    rw4Case(out, name, t, quantised(c, {5, 6, 5, 8}), false);
  }
  for (const auto& [name, d3dFormat, alpha] : {std::tuple{"A8R8G8B8", 21u, true}, std::tuple{"X8R8G8B8", 22u, false}}) {
    const Quadrants c = colourPattern(alpha);
    test::Rw4Texture t;
    t.d3dFormat = d3dFormat;
    t.levels = {packMasked(c, {0xFF0000, 0xFF00, 0xFF, alpha ? 0xFF000000 : 0}, 4)};
    rw4Case(out, name, t, c, false);
  }
}

// --- The demo character as a DFF with a TXD --------------------------------------------------------

// The demo's tubes take u around each bone (normal = cos 2πu · bone X + sin 2πu · bone Z,
// src/demo/character.cpp): the texture's left half (u < 0.5) is red, its right half blue, so which
// colour faces the camera on +Z at a bone follows from that bone's bind axes.
void demoCase(Output& out) {
  Rig rig = makeDemoCharacter();
  Material skin;
  skin.name = "skin";
  skin.textures = {"demo_skin"};
  rig.materials = {skin};
  for (Mesh& mesh : rig.meshes) mesh.parts = {MeshPart{0, 0, static_cast<uint32_t>(mesh.indices.size())}};
  const Rgba red{255, 0, 0, 255}, blue{0, 0, 255, 255};
  const Quadrants halves{red, blue, red, blue};
  test::TxdRaster r;
  r.name = "demo_skin";
  r.width = r.height = kSide;
  r.levels = {packMasked(halves, {0xFF0000, 0xFF00, 0xFF, 0xFF000000}, 4)};
  const fs::path dir = out.root / "demo";
  writeFile(dir / "demo_character.dff", written(renderware::writeDff(rig), "demo_character.dff"));
  writeFile(dir / "demo_character.txd", test::writeTxd({r}));

  const std::vector<glm::mat4> bind = rig.skeleton.worldBindMatrices();
  Json probes = Json::array();
  // Mid-segment of the torso and of the left thigh: each bone's tube, halfway to its child.
  for (const auto& [bone, child] : {std::pair{"spine_02", "spine_03"}, std::pair{"thigh_l", "calf_l"}}) {
    const glm::mat4& m = bind.at(static_cast<size_t>(rig.skeleton.find(bone)));
    const float facing = std::atan2(m[2].z, m[0].z);  // the angle 2πu whose normal leans most to +Z
    const float u = std::fmod(facing / (2.0f * 3.14159265f) + 1.0f, 1.0f);
    if (std::fabs(u - 0.25f) > 0.2f && std::fabs(u - 0.75f) > 0.2f) {
      std::fprintf(stderr, "%s faces +Z at u = %.3f, too near a colour's edge to tell\n", bone, static_cast<double>(u));
      std::exit(1);
    }
    const Rgba front = u < 0.5f ? red : blue, back = u < 0.5f ? blue : red;
    probes.push_back({{"bone", bone}, {"towards", child}, {"front", {front[0], front[1], front[2]}}, {"back", {back[0], back[1], back[2]}}});
  }
  out.cases.push_back({{"format", "renderware-txd"},
                       {"pixelFormat", "8888"},
                       {"input", fs::relative(dir / "demo_character.dff", out.root).generic_string()},
                       {"makes", "character"},
                       {"probes", probes}});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: render_texture_quads DIR\n");
    return 2;
  }
  Output out;
  out.root = fs::absolute(argv[1]);
  fs::create_directories(out.root);
  txdCases(out);
  ddsCases(out);
  gxCases(out);
  rw4Cases(out);
  demoCase(out);
  std::ofstream(out.root / "manifest.json") << out.cases.dump(1) << '\n';
  return 0;
}
