// A one-line progress bar on stderr, "[#####     ] 3/10 name", redrawn with \r. It draws only for
// batches (more than one item) on a terminal, so logs and pipes never see control characters.
#pragma once

#include <cstddef>
#include <string_view>

namespace rigport::cli {

class ProgressBar {
 public:
  explicit ProgressBar(size_t total);
  // Draws the bar with `done` items finished and `name` being worked on.
  void show(size_t done, std::string_view name);
  // Erases the bar so that a message can be printed on a clean line.
  void clear();

 private:
  size_t total_;
  bool enabled_;
  size_t width_ = 0;  // characters of the last drawn line
};

}  // namespace rigport::cli
