#include "support/writer_cell.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>

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
std::vector<Beyond> compareCell(const WriterTarget& target, const std::string& args, const std::string& label, const std::string& convertText) {
  const CliRun run = runCli("compare " + args + " --json", Capture::StdoutOnly);
  EXPECT_TRUE(run.code == 0 || run.code == 1) << "rigport compare " << args << " exited " << run.code << "\n" << run.text;
  const nlohmann::json report = nlohmann::json::parse(run.text, nullptr, false);
  if (report.is_discarded() || !report.contains("measures")) {
    ADD_FAILURE() << "rigport compare " << args << ": no JSON report\n" << run.text;
    return {Beyond{"no report", 0.0, ""}};
  }
  for (const auto& u : report["unmatched"]) {
    if (u["kind"] == "bone" && renamed(u["name"].get<std::string>(), convertText)) continue;
    EXPECT_TRUE(target.cannotHold.count(u["kind"].get<std::string>()) != 0 && u["onlyIn"] == "first")
        << label << ": only in the " << u["onlyIn"] << " file: " << u["kind"] << " '" << u["name"] << "'";
  }
  std::vector<Beyond> beyond;
  std::string measured;
  for (const auto& m : report["measures"]) {
    if (m["compared"].get<size_t>() == 0) continue;
    measured += fmt::format("  {} {:.3g} m", m["measure"].get<std::string>(), m["worst"].get<double>());
    if (!m["within"].get<bool>()) beyond.push_back(Beyond{m["measure"].get<std::string>(), m["worst"].get<double>(), m["where"].dump()});
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
  size_t warnings = 0;
  for (size_t at = 0; (at = converted.text.find("warning:", at)) != std::string::npos; ++at) ++warnings;
  std::printf("[ convert  ] %s: exit %d, %zu warnings\n", label.c_str(), converted.code, warnings);
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

double statedSize(const std::string& convertText, const std::string& measure) {
  double stated = -1.0;
  const std::regex size(measure + " ([0-9.]+(?:e[-+]?[0-9]+)?) m");
  std::istringstream lines(convertText);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("warning:") == std::string::npos) continue;
    for (std::sregex_iterator it(line.begin(), line.end(), size), end; it != end; ++it) stated = std::max(stated, std::stod((*it)[1].str()));
  }
  return stated;
}

bool named(const WriterCell& cell, const Beyond& b) { return statedSize(cell.convertText, b.measure) >= b.worst * (1.0 - 5e-3); }

void expectWithinPrecisionOrNamed(const std::string& label, const WriterCell& cell) {
  for (const Beyond& b : cell.beyond) {
    const double stated = statedSize(cell.convertText, b.measure);
    EXPECT_TRUE(named(cell, b)) << label << ": " << b.measure << " " << b.worst << " m at " << b.where << " is beyond the stated precision, and "
                                << (stated < 0 ? std::string("no warning states its size") : fmt::format("the warnings state only {:.3g} m", stated))
                                << "\n" << cell.convertText;
  }
}

}  // namespace rigport::test
