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

struct WriterCell {
  int convertCode = -1;
  std::string convertText;  // convert's output (warnings, errors)
  // convert warned of a loss with its size: every writer's loss warning says "largest deviation",
  // the influence limit's "largest weight dropped" (its deviation depends on the pose).
  bool lossNamed = false;
  // The measures beyond compare's tolerance (the target's stated precision), each with where.
  std::vector<std::string> beyond;
};

// Converts `input` to `target` in `dir` and, when convert succeeded, measures every game file it
// wrote with compare (printing one "[ measured ]" line each). Anything compare finds on one side
// only must be what the target cannot hold or a bone convert renamed and said so; other failures of
// compare are test failures.
WriterCell runWriterCell(const std::string& label, const std::string& input, const WriterTarget& target, const std::string& dir);

// The cell's rule: beyond the stated precision only with the loss named, and never at rest (every
// loss a writer names, of keys or weights, leaves the rest pose as it was).
void expectWithinPrecisionOrNamed(const std::string& label, const WriterCell& cell);
// The cell breaks that rule.
bool silentlyBeyond(const WriterCell& cell);

}  // namespace rigport::test
