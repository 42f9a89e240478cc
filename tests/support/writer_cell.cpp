#include "support/writer_cell.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace rigport::test {
namespace {

namespace fs = std::filesystem;

std::string withDir(std::string text, const std::string& dir) {
  for (size_t at; (at = text.find("{dir}")) != std::string::npos;) text.replace(at, 5, dir);
  return text;
}

std::vector<std::string> filesEndingIn(const std::string& dir, const std::string& ext) {
  std::vector<std::string> out;
  if (ext.empty()) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ext) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A bone convert renamed and said so (names-unique, names-ascii: "'root' (no joint) as 'root_2'"),
// which compare, matching by name, finds on one side only.
bool renamed(const std::string& bone, const std::string& convertText) {
  for (const std::string& said : {"'" + bone + "' as '", "'" + bone + "' (no joint) as '", "'" + bone + "' (a joint) as '", " as '" + bone + "'"})
    if (convertText.find(said) != std::string::npos) return true;
  return false;
}

// One `rigport compare --json` run, checked: unmatched only what the target cannot hold or a bone
// convert renamed; returns the measures beyond tolerance, described.
std::vector<std::string> compareCell(const WriterTarget& target, const std::string& args, const std::string& label, const std::string& convertText) {
  const CliRun run = runCli("compare " + args + " --json", Capture::StdoutOnly);
  EXPECT_TRUE(run.code == 0 || run.code == 1) << "rigport compare " << args << "\n" << run.text;
  const nlohmann::json report = nlohmann::json::parse(run.text, nullptr, false);
  if (report.is_discarded() || !report.contains("measures")) {
    ADD_FAILURE() << "rigport compare " << args << ": no JSON report\n" << run.text;
    return {"no report"};
  }
  for (const auto& u : report["unmatched"]) {
    if (u["kind"] == "bone" && renamed(u["name"].get<std::string>(), convertText)) continue;
    EXPECT_TRUE(target.cannotHold.count(u["kind"].get<std::string>()) != 0 && u["onlyIn"] == "first")
        << label << ": only in the " << u["onlyIn"] << " file: " << u["kind"] << " '" << u["name"] << "'";
  }
  std::vector<std::string> beyond;
  std::string measured;
  for (const auto& m : report["measures"]) {
    if (m["compared"].get<size_t>() == 0) continue;
    measured += fmt::format("  {} {:.3g} m", m["measure"].get<std::string>(), m["worst"].get<double>());
    if (!m["within"].get<bool>()) beyond.push_back(fmt::format("{} {:.3g} m at {}", m["measure"].get<std::string>(), m["worst"].get<double>(), m["where"].dump()));
  }
  std::printf("[ measured ] %s (tolerance %.3g m):%s\n", label.c_str(), report["tolerance"].get<double>(), measured.c_str());
  return beyond;
}

}  // namespace

const std::vector<WriterTarget>& writerTargets() {
  static const std::vector<WriterTarget> targets = {
      {"DffAnm", "--to renderware-dff -o {dir}/m.dff --anim-out {dir}/{clip}.anm", "m.dff", ".anm", {}},
      {"DrsSka", "--to battleforge-drs -o {dir}/m.drs --anim-out {dir}/{clip}.ska", "m.drs", ".ska", {}},
      {"Sims3Package", "--to sims3-package -o {dir}/m.package", "m.package", "", {"mesh"}},
      {"Sims3Clip", "--to sims3-clip -o {dir}/{clip}.clip", "", ".clip", {"mesh"}, true},
      {"Rw4Arena", "--to rw4-arena -o {dir}/m.psg", "m.psg", "", {"clip"}},
      {"Sluggers", "--to sluggers-model -o {dir}/m.sluggers", "m.sluggers", "", {"clip"}},
  };
  return targets;
}

void PrintTo(const WriterTarget& target, std::ostream* os) { *os << target.name; }

WriterCell runWriterCell(const std::string& label, const std::string& input, const WriterTarget& target, const std::string& dir) {
  WriterCell cell;
  const CliRun converted = runCli("convert " + quote(input) + " " + withDir(target.convert, dir) + " --overwrite");
  cell.convertCode = converted.code;
  cell.convertText = converted.text;
  cell.lossNamed = converted.text.find("warning") != std::string::npos && (converted.text.find("largest deviation") != std::string::npos ||
                                                                           converted.text.find("largest weight dropped") != std::string::npos);
  size_t warnings = 0;
  for (size_t at = 0; (at = converted.text.find("warning:", at)) != std::string::npos; ++at) ++warnings;
  std::printf("[ convert  ] %s: exit %d, %zu warnings%s\n", label.c_str(), converted.code, warnings, cell.lossNamed ? ", a loss named with its size" : "");
  if (converted.code != 0) return cell;

  const std::vector<std::string> clips = filesEndingIn(dir, target.clipFiles);
  const std::string allow = target.cannotHold.empty() ? "" : " --allow-missing";
  if (target.clipsOneByOne) {
    EXPECT_FALSE(clips.empty()) << label << ": no clip written\n" << converted.text;
    for (const std::string& clip : clips) {
      const std::string name = fs::path(clip).stem().string();
      const auto b = compareCell(target, quote(input) + " " + quote(clip) + " --skeleton-b " + quote(input) + " --clip " + name + allow,
                                 fmt::format("{} ({})", label, name), converted.text);
      cell.beyond.insert(cell.beyond.end(), b.begin(), b.end());
    }
    return cell;
  }
  std::string args = quote(input) + " " + quote(dir + "/" + target.second) + allow;
  for (const std::string& clip : clips) args += " --anim-b " + quote(clip);
  cell.beyond = compareCell(target, args, label, converted.text);
  return cell;
}

bool restBeyond(const WriterCell& cell) {
  return std::any_of(cell.beyond.begin(), cell.beyond.end(), [](const std::string& b) { return b.rfind("clip ", 0) != 0; });
}

bool silentlyBeyond(const WriterCell& cell) { return !cell.beyond.empty() && (!cell.lossNamed || restBeyond(cell)); }

void expectWithinPrecisionOrNamed(const std::string& label, const WriterCell& cell) {
  if (cell.beyond.empty()) return;
  // Every loss a writer names is of keys or weights, which leave the rest pose as it was.
  EXPECT_FALSE(restBeyond(cell)) << label << ": the rest pose is beyond the stated precision, which no named loss explains:\n  "
                                 << cell.beyond.front() << "\n" << cell.convertText;
  std::string all;
  for (const std::string& b : cell.beyond) all += "\n  " + b;
  EXPECT_TRUE(cell.lossNamed) << label << ": beyond the stated precision without a warning:" << all << "\n" << cell.convertText;
}

}  // namespace rigport::test
