// See stop_signal.hpp.
#include "sim/stop_signal.hpp"

#include <signal.h>

#include <simgrid/s4u.hpp>

#include "sim/actor_guard.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {
namespace {

volatile sig_atomic_t interrupted = 0;

// SA_RESETHAND: the first signal sets the flag, a second one takes the default action.
extern "C" void on_signal(int) { interrupted = 1; }

sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

void install_interrupt_handler() {
  struct sigaction action {};
  action.sa_handler = interrupted ? SIG_DFL : on_signal;  // after a first signal, the next one ends the process
  action.sa_flags = SA_RESETHAND | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool interrupt_requested() { return interrupted != 0; }

InterruptHandlerKept::InterruptHandlerKept() {
  const sigset_t set = interrupt_signals();
  sigprocmask(SIG_BLOCK, &set, nullptr);
}

InterruptHandlerKept::~InterruptHandlerKept() {
  install_interrupt_handler();
  const sigset_t set = interrupt_signals();
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

void end_run_on_interrupt(std::function<void()> record) {
  // Runs in SimGrid's maestro, between the actors' turns: each time the clock moves, which it does
  // at least once per evaluation, per training step and per transfer.
  sg4::Engine::on_time_advance_cb([record = std::move(record), done = false](double) mutable {
    if (done || !interrupt_requested()) return;
    done = true;
    record();
    end_simulation();
  });
}

}  // namespace edgetrain::sim
