// `rigport formats`: the registry as a table.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "formats/registry.hpp"

namespace rigport::cli {

void addFormatsCommand(CLI::App& app, int& exitCode) {
  CLI::App* cmd = app.add_subcommand("formats", "List the formats rigport reads and writes");
  cmd->callback([&exitCode] {
    constexpr const char* kRow = "{:<16} {:<11} {:<5} {:<6} {:<15} {}\n";
    fmt::print(kRow, "format", "extensions", "read", "write", "animation-only", "carries");
    for (const FormatInfo& f : formats()) {
      std::string carries = carriesText(f.carries);
      if (!f.binding.empty()) carries += fmt::format(" (bound by {})", f.binding);
      fmt::print(kRow, f.name, f.extensions, "yes", f.write != nullptr ? "yes" : "no", f.animationOnly() ? "yes" : "no", carries);
    }
    exitCode = kExitOk;
  });
}

}  // namespace rigport::cli
