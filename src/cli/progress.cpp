#include "cli/progress.hpp"

#include <cstdio>
#include <string>
#include <unistd.h>

#include <fmt/format.h>

namespace rigport::cli {

ProgressBar::ProgressBar(size_t total) : total_(total), enabled_(total > 1 && ::isatty(STDERR_FILENO) == 1) {}

void ProgressBar::show(size_t done, std::string_view name) {
  if (!enabled_) return;
  constexpr size_t kBar = 20;
  const size_t filled = done * kBar / total_;  // total_ > 1 when enabled
  const std::string line = fmt::format("[{}{}] {}/{} {}", std::string(filled, '#'), std::string(kBar - filled, ' '), done, total_, name);
  // Pad over the previous line's tail when this one is shorter.
  fmt::print(stderr, "\r{:<{}}", line, width_);
  std::fflush(stderr);
  width_ = line.size();
}

void ProgressBar::clear() {
  if (!enabled_ || width_ == 0) return;
  fmt::print(stderr, "\r{:<{}}\r", "", width_);
  std::fflush(stderr);
  width_ = 0;
}

}  // namespace rigport::cli
