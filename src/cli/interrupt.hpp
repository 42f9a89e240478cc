// Ctrl-C during a batch. The first SIGINT, SIGTERM or SIGHUP (Ctrl-C, Ctrl-Break on Windows) asks
// the batch to stop: no new file is started, the files in flight finish their atomic writes, and
// the command exits with kExitInterrupted. A second one stops at once, removing the temporary files
// in flight first; so does a broken pipe (`rigport ... | head`). Either way no partial or temporary
// file is left behind (platform/process.hpp).
#pragma once

namespace rigport::cli {

class InterruptGuard {
 public:
  InterruptGuard();   // installs the handlers
  ~InterruptGuard();  // restores the previous ones
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  static bool requested();
};

}  // namespace rigport::cli
