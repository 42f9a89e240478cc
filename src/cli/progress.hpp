// A one-line progress bar on stderr, "[#####     ] 3/10 2.5 files/s, 0:03 left name", redrawn
// with \r. It draws only for batches (more than one item) on a terminal, so logs and pipes never
// see control characters.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace rigport::cli {

class ProgressBar {
 public:
  explicit ProgressBar(size_t total);
  // Draws the bar with `done` items finished, the last being `name`.
  void show(size_t done, std::string_view name);
  // Erases the bar so that a message can be printed on a clean line.
  void clear();

  // "2.5 files/s, 1:03 left" after `done` of `total` in `elapsed` seconds; "" before the first.
  static std::string rate(size_t done, size_t total, double elapsed);

 private:
  size_t total_;
  bool enabled_;
  size_t width_ = 0;  // characters of the last drawn line
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace rigport::cli
