// A batch's inputs and its workers. Folders given on the command line are walked recursively and
// each file keeps its place in the tree under -o; the work runs on N threads while results come
// back in input order, so the output and the report are the same for any N.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"

namespace rigport::cli {

struct BatchInput {
  std::string path;
  std::string folder;  // relative output folder: the file's folder below the input folder given, or ""
};

struct BatchSelection {
  std::vector<std::string> include;  // --include GLOB: against the path below the folder when it has a '/', else the file name
  bool animationFiles = false;       // a walked folder also yields animation-only files (a --skeleton is given)
};

// What the walk found: the files to convert, and what it could not take, never silently.
struct BatchInputs {
  std::vector<BatchInput> files;
  std::vector<Error> unreadable;  // folders the walk could not list: each fails like an input
  std::vector<Error> skipped;     // dangling symbolic links and links that lead back into the walk: warnings
};

// Files named on the command line are taken as they are, in order; a folder adds its files in
// sorted path order: those --include matches, or without --include those whose extension a
// registered format claims. Hidden files and folders (".name") are skipped. A symbolic link to a
// folder is followed unless it leads to a folder the walk has already entered (a loop).
BatchInputs expandInputs(const std::vector<std::string>& arguments, const BatchSelection& selection);

// Threads for `-j 0`: the cores this process may run on.
unsigned defaultJobs();

// Runs work(i) for every i < count on `jobs` threads and hands each result to done(i) on the
// calling thread, in order of i. At most 4 × jobs results wait to be handed over, so memory stays
// bounded however far the workers run ahead. Once stop() is true no new i starts; the ones
// started finish and are handed over. Returns how many were handed over. With one job (or one
// input) the work runs on the calling thread: no thread to start, and the model is allocated from
// the main heap the allocator policy set up (platform/allocator_policy.hpp).
template <class Result>
size_t runInOrder(size_t count, unsigned jobs, const std::function<Result(size_t)>& work,
                  const std::function<void(size_t, Result&&)>& done, const std::function<bool()>& stop) {
  jobs = std::max(1u, jobs);
  if (jobs == 1 || count <= 1) {
    size_t handed = 0;
    for (; handed < count && !stop(); ++handed) done(handed, work(handed));
    return handed;
  }
  const size_t window = 4 * static_cast<size_t>(jobs);
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::optional<Result>> waiting;  // results of [handed, handed + waiting.size())
  size_t next = 0, handed = 0, running = 0;

  auto worker = [&] {
    std::unique_lock lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return next >= count || stop() || next < handed + window; });
      if (next >= count || stop()) return;
      const size_t i = next++;
      ++running;
      if (waiting.size() < i - handed + 1) waiting.resize(i - handed + 1);
      lock.unlock();
      Result r = work(i);
      lock.lock();
      waiting[i - handed] = std::move(r);
      --running;
      changed.notify_all();
    }
  };
  std::vector<std::jthread> threads;
  for (unsigned t = 0; t < std::min<size_t>(jobs, count); ++t) threads.emplace_back(worker);

  std::unique_lock lock(mutex);
  for (;;) {
    // A signal does not wake the condition variable: poll for stop() while waiting.
    changed.wait_for(lock, std::chrono::milliseconds(50), [&] { return !waiting.empty() && waiting.front().has_value(); });
    while (!waiting.empty() && waiting.front().has_value()) {
      Result r = std::move(*waiting.front());
      waiting.pop_front();
      const size_t i = handed++;
      lock.unlock();
      done(i, std::move(r));
      lock.lock();
      changed.notify_all();
    }
    const bool started = next >= count || stop();
    if (started && running == 0 && (waiting.empty() || !waiting.front().has_value())) break;
  }
  changed.notify_all();
  lock.unlock();
  threads.clear();  // joins
  return handed;
}

}  // namespace rigport::cli
