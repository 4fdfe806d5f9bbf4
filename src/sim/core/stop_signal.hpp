// SIGINT and SIGTERM end a run early with its results written (status "interrupted", exit 130),
// within about a second of wall time whatever the actors are doing. The handler only sets a flag.
// The servers check it between updates, and end_run_on_interrupt() checks it each time the
// simulated clock moves, so that a server blocked on a slow transfer, a long step or a starved
// stream, while the observer keeps evaluating, cannot delay the stop. A second signal ends the
// process at once (the previous results stay as they were).
#pragma once

#include <functional>

namespace edgetrain::sim {

// Installs edgetrain's handler for SIGINT and SIGTERM: at the start of main, and again after
// SimGrid's Engine replaced it (keeping_interrupt_handler).
void install_interrupt_handler();
bool interrupt_requested();

// Signals held back, e.g. while SimGrid's Engine constructor installs its own SIGINT handler (it
// prints every actor's state and exits with status 1). Destroying it installs edgetrain's handler
// again and lets a signal that came meanwhile through to it.
class InterruptHandlerKept {
 public:
  InterruptHandlerKept();
  ~InterruptHandlerKept();
  InterruptHandlerKept(const InterruptHandlerKept&) = delete;
  InterruptHandlerKept& operator=(const InterruptHandlerKept&) = delete;
};

// Calls `construct` (which creates SimGrid's Engine) with edgetrain's handler kept in place.
template <class F>
auto keeping_interrupt_handler(F&& construct) {
  const InterruptHandlerKept kept;
  return construct();
}

// During engine->run(): as soon as a signal came, calls `record` (which marks the run interrupted)
// once, and kills every actor, so the engine returns.
void end_run_on_interrupt(std::function<void()> record);

}  // namespace edgetrain::sim
