// `rigport formats`: the registry as a table.
#include <algorithm>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/streams.hpp"
#include "formats/registry.hpp"

namespace rigport::cli {

void addFormatsCommand(CLI::App& app, int& exitCode) {
  CLI::App* cmd = app.add_subcommand("formats", "List the formats rigport reads and writes");
  cmd->callback([&exitCode] {
    // Columns as wide as their widest entry, so that a long name or extension list never shifts a row.
    size_t nameWidth = 6, extensionWidth = 10;
    for (const FormatInfo& f : formats()) {
      nameWidth = std::max(nameWidth, f.name.size());
      extensionWidth = std::max(extensionWidth, f.extensions.size());
    }
    const auto row = [&](std::string_view name, std::string_view extensions, std::string_view write, std::string_view animationOnly,
                         const std::string& carries) {
      result("{:<{}}  {:<{}}  {:<4}  {:<5}  {:<14}  {}\n", name, nameWidth, extensions, extensionWidth, "yes", write, animationOnly, carries);
    };
    result("{:<{}}  {:<{}}  {:<4}  {:<5}  {:<14}  {}\n", "format", nameWidth, "extensions", extensionWidth, "read", "write", "animation-only",
               "carries");
    for (const FormatInfo& f : formats()) {
      std::string carries = carriesText(f.carries);
      if (!f.binding.empty()) carries += fmt::format(" (bound by {})", f.binding);
      row(f.name, f.extensions, f.write != nullptr ? "yes" : "no", f.animationOnly() ? "yes" : "no", carries);
    }
    exitCode = kExitOk;
  });
}

}  // namespace rigport::cli
