// `rigport demo`: the demo character through every format rigport can write, and back.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "demo/round_trip.hpp"

namespace rigport {

struct DemoRow {
  std::string format;     // registry name
  std::string file;       // <dir>/demo_character.<ext>, as the format's writer made it
  std::string glb;        // <dir>/demo_character_<format>.glb, converted from what was read back
  size_t bytes = 0;       // size of `file`
  size_t bones = 0;       // of the rig read back (for animation-only formats: bound to the character)
  size_t vertices = 0;
  size_t keys = 0;
  size_t warnings = 0;    // the reader's warnings
  RoundTripError error;   // see round_trip.hpp for units
  std::optional<Error> failure;  // the step that failed (write, read, export, compare), if any
};

struct DemoReport {
  std::string characterGlb;  // <dir>/demo_character.glb
  std::vector<DemoRow> rows;  // one per registry format with a writer, in registry order
  std::vector<std::string> glbFiles() const;  // every .glb written
};

// Builds makeDemoCharacter(), exports it, then for each writable format: write, read back
// (animation-only formats are bound onto the character's skeleton and mesh), export to .glb and
// measure the round-trip error in glTF axes (animations only when the format brought any back).
// A format that fails gets its row with `failure`; only failing to write the character's own .glb
// fails the whole run.
Result<DemoReport> runDemo(const std::string& dir);

}  // namespace rigport
