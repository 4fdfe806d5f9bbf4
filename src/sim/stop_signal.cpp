// See stop_signal.hpp.
#include "sim/stop_signal.hpp"

#include <csignal>

namespace edgetrain::sim {
namespace {
volatile std::sig_atomic_t interrupted = 0;
extern "C" void on_signal(int) { interrupted = 1; }
}  // namespace

void install_interrupt_handler() {
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

bool interrupt_requested() { return interrupted != 0; }

}  // namespace edgetrain::sim
