// See stop_signal.hpp.
#include "sim/core/stop_signal.hpp"

#include <signal.h>

#include <simgrid/s4u.hpp>

#include "sim/core/actor_guard.hpp"
#include "util/stop_flag.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {
namespace {

constexpr int kSignals[2] = {SIGINT, SIGTERM};
bool ignored_at_start[2] = {false, false};

void set_disposition(int sig, void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(sig, &action, nullptr);
}

// The first signal sets the flag; after it, the next one takes the default action: it ends the
// process at once.
extern "C" void on_signal(int) {
  util::stop_flag = 1;
  for (int k = 0; k < 2; ++k)
    if (!ignored_at_start[k]) set_disposition(kSignals[k], SIG_DFL);
}

sigset_t interrupt_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kSignals) sigaddset(&set, sig);
  return set;
}

bool signal_ignored(int sig) {
  struct sigaction current {};
  return sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_IGN;
}

}  // namespace

void install_interrupt_handler() {
  // A signal the process was started ignoring (a background job of a script) stays ignored, also
  // after SimGrid's Engine installed its handler.
  static const bool checked = [] {
    for (int k = 0; k < 2; ++k) ignored_at_start[k] = signal_ignored(kSignals[k]);
    return true;
  }();
  (void)checked;
  for (int k = 0; k < 2; ++k) {
    set_disposition(kSignals[k], ignored_at_start[k] ? SIG_IGN : util::stop_requested() ? SIG_DFL : on_signal);
  }
}

bool interrupt_requested() { return util::stop_requested(); }

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
