// The safety net around every actor body. An exception escaping an actor body aborts the whole
// process (SimGrid cannot carry it into engine->run()), losing every result. guarded() catches it,
// hands it to the run with the actor's name, and ends the simulation, so that the run writes
// its results (status "failed") and exits with the status its error type calls for.
#pragma once

#include <exception>
#include <functional>
#include <simgrid/Exception.hpp>
#include <string>
#include <utility>

namespace edgetrain::sim {

// Kills every actor but the caller (every actor when called from SimGrid's maestro) and those that end
// themselves: the engine returns once the caller's body ends.
void end_simulation();

// An actor that end_simulation() tells to end instead of killing it, from now until ~SelfEnding. A fleet
// driver waits with wait_any on Execs: SimGrid 3.32 answers an Exec's waiters even when they were killed
// meanwhile (ExecImpl::finish), so a driver killed in that wait is resumed after its death, and the
// process aborts ("The Impossible Did Happen"). `tell` must make the actor's waits return. SimGrid kills the
// daemon actors left when the last other one ends: the run's main actor tells them first (tell_self_ending).
void tell_self_ending();

class SelfEnding {
 public:
  explicit SelfEnding(std::function<void()> tell);
  ~SelfEnding();
  SelfEnding(const SelfEnding&) = delete;
  SelfEnding& operator=(const SelfEnding&) = delete;

 private:
  long pid_;
};

// The name of the running actor, for messages.
std::string current_actor_name();

// `body` wrapped for sg4::Actor::create; `run.fail(actor_name, std::exception_ptr)` receives what it
// throws (RunState::fail). `run` must outlive the actor.
template <class Run, class Body>
auto guarded(Run& run, Body body) {
  return [&run, body = std::move(body)]() mutable {
    try {
      body();
    } catch (const simgrid::ForcefulKillException&) {
      throw;  // the actor is being killed: SimGrid unwinds its stack with this
    } catch (...) {
      run.fail(current_actor_name(), std::current_exception());
      end_simulation();
    }
  };
}

// The message of an exception (its what(), or a placeholder for anything else thrown).
std::string error_message(std::exception_ptr error);

}  // namespace edgetrain::sim
