// Presses Ctrl-C in another process's console, as a user at that console would, for the Windows
// twin of the batch interrupt test (tests/cli_batch_test.cpp): `send_ctrl_c PID COUNT`.
// Windows delivers Ctrl-C to the processes of one console only, and a process belongs to at most
// one console, so the sender has to leave its own and join the target's; a program of its own does
// that, rather than the test program, whose own console and output must stay as they are.
// Exit status 0 when every event was sent, 1 with the Windows error otherwise.
#include "platform/windows_api.hpp"

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: send_ctrl_c PID COUNT\n");
    return 1;
  }
  const auto pid = static_cast<DWORD>(std::strtoul(argv[1], nullptr, 10));
  const int count = std::atoi(argv[2]);
  FreeConsole();
  if (!AttachConsole(pid)) {
    std::fprintf(stderr, "send_ctrl_c: cannot join the console of process %lu (error %lu)\n",
                 static_cast<unsigned long>(pid), static_cast<unsigned long>(GetLastError()));
    return 1;
  }
  // The event reaches every process of the console, this one too: this one ignores it.
  SetConsoleCtrlHandler(nullptr, TRUE);
  for (int i = 0; i < count; ++i) {
    if (!GenerateConsoleCtrlEvent(CTRL_C_EVENT, 0)) {
      std::fprintf(stderr, "send_ctrl_c: event %d not sent (error %lu)\n", i + 1, static_cast<unsigned long>(GetLastError()));
      return 1;
    }
    Sleep(50);  // one press after the other, as a user's two presses would be
  }
  return 0;
}
