#include "cli/progress.hpp"
#include "cli/streams.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include <fmt/format.h>
#include "platform/process.hpp"

namespace rigport::cli {

ProgressBar::ProgressBar(size_t total) : total_(total), enabled_(total > 1 && platform::stderrIsTerminal()) {}

std::string ProgressBar::rate(size_t done, size_t total, double elapsed) {
  if (done == 0 || elapsed <= 0.0) return "";
  const double perSecond = static_cast<double>(done) / elapsed;
  const auto left = static_cast<long long>(std::ceil(static_cast<double>(total - std::min(done, total)) / perSecond));
  return fmt::format("{:.1f} files/s, {}:{:02} left", perSecond, left / 60, left % 60);
}

void ProgressBar::show(size_t done, std::string_view name) {
  if (!enabled_) return;
  constexpr size_t kBar = 20;
  const size_t filled = done * kBar / total_;  // total_ > 1 when enabled
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string line = fmt::format("[{}{}] {}/{} {} {}", std::string(filled, '#'), std::string(kBar - filled, ' '), done,
                                       total_, rate(done, total_, elapsed), name);
  // Pad over the previous line's tail when this one is shorter.
  message("\r{:<{}}", line, width_);
  std::fflush(stderr);
  width_ = line.size();
}

void ProgressBar::clear() {
  if (!enabled_ || width_ == 0) return;
  message("\r{:<{}}\r", "", width_);
  std::fflush(stderr);
  width_ = 0;
}

}  // namespace rigport::cli
