// One cell of a writer matrix (issue 27, "What it must show"): a glTF input converted with
// `rigport convert --to` and the game file measured against it with `rigport compare --json`, as a
// user checks an edit. tests/writer_matrix_test.cpp (hand-made glTF variants) and
// tests/writer_corpus_test.cpp (Blender and gltfpack output) share the targets and the rule.
#pragma once

#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace rigport::test {

// How a target is written and read back.
struct WriterTarget {
  const char* name;
  // `convert` arguments after the input, with {dir} for the cell's directory.
  const char* convert;
  // The game file compare reads (empty: none), and the extension of the clip files bound to it.
  const char* second;
  const char* clipFiles;
  // What the target cannot hold, so compare finds it on the input's side only.
  std::set<std::string> cannotHold;
  bool clipsOneByOne = false;  // compared per clip (--clip), the input as the clips' skeleton
};

// DFF + .anm, DRS + SKA, Sims 3 package, Sims 3 CLIP, RW4 arena, Sluggers block.
const std::vector<WriterTarget>& writerTargets();

void PrintTo(const WriterTarget& target, std::ostream* os);

// A measure compare found beyond its tolerance (the target's stated precision).
struct Beyond {
  std::string measure;  // "rest joints", "clip vertices", ...
  double worst = 0.0;   // metres
  std::string where;    // compare's JSON
};

struct WriterCell {
  int convertCode = -1;
  std::string convertText;  // convert's output (warnings, errors)
  std::vector<Beyond> beyond;
};

// The largest size convert's warnings state for `measure` ("clip joints 1.62 m", as the pose-loss
// warning gives each measure), or a negative value when none does.
double statedSize(const std::string& convertText, const std::string& measure);
// Whether a warning states at least `b.worst` for its measure (the warning prints 3 significant
// digits: within half a unit of the last).
bool named(const WriterCell& cell, const Beyond& b);

// Converts `input` to `target` in `dir` and, when convert succeeded, measures every game file it
// wrote with compare (printing one "[ measured ]" line each). Anything compare finds on one side
// only must be what the target cannot hold or a bone convert renamed and said so; other failures of
// compare are test failures.
WriterCell runWriterCell(const std::string& label, const std::string& input, const WriterTarget& target, const std::string& dir);

// The cell's rule: every measure beyond the stated precision is named by a warning of convert that
// states a size at least the measured one (a warning of the right kind that understates the loss
// does not name it).
void expectWithinPrecisionOrNamed(const std::string& label, const WriterCell& cell);

}  // namespace rigport::test
