#include "cli/interrupt.hpp"

#include "cli/exit_codes.hpp"
#include "platform/process.hpp"

namespace rigport::cli {

InterruptGuard::InterruptGuard() { platform::installInterruptHandlers(kExitInterrupted); }

InterruptGuard::~InterruptGuard() { platform::restoreInterruptHandlers(); }

bool InterruptGuard::requested() { return platform::interruptRequested(); }

}  // namespace rigport::cli
