#include "cli/interrupt.hpp"

#include <atomic>
#include <csignal>
#include <unistd.h>

#include "cli/exit_codes.hpp"
#include "core/file_io.hpp"

namespace rigport::cli {
namespace {

std::atomic<int> signalsSeen{0};
struct sigaction previousInt, previousTerm;

extern "C" void onInterrupt(int) {
  if (signalsSeen.fetch_add(1) == 0) return;
  removeTemporaryFilesInFlight();
  ::_exit(kExitInterrupted);
}

}  // namespace

InterruptGuard::InterruptGuard() {
  struct sigaction action {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &previousInt);
  sigaction(SIGTERM, &action, &previousTerm);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &previousInt, nullptr);
  sigaction(SIGTERM, &previousTerm, nullptr);
}

bool InterruptGuard::requested() { return signalsSeen.load() > 0; }

}  // namespace rigport::cli
