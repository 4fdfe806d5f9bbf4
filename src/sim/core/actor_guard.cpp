// See actor_guard.hpp.
#include "sim/core/actor_guard.hpp"

#include <simgrid/s4u.hpp>

#include <map>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

namespace {

// The actors that end themselves, by pid, and how to tell each.
std::map<long, std::function<void()>>& self_ending() {
  static std::map<long, std::function<void()>> actors;
  return actors;
}

}  // namespace

SelfEnding::SelfEnding(std::function<void()> tell) : pid_(sg4::this_actor::get_pid()) {
  self_ending()[pid_] = std::move(tell);
}

SelfEnding::~SelfEnding() { self_ending().erase(pid_); }

void tell_self_ending() {
  std::vector<std::function<void()>> tell;  // telling may end none of them yet
  for (auto it = self_ending().begin(); it != self_ending().end();) {
    if (sg4::Actor::by_pid(it->first) == nullptr) {  // left by an engine that ended without unwinding its actors
      it = self_ending().erase(it);
      continue;
    }
    tell.push_back(it->second);
    ++it;
  }
  for (const auto& told : tell) told();
}

void end_simulation() {
  // Told first, then the others killed as kill_all would, in pid order.
  tell_self_ending();
  const long me = sg4::Actor::is_maestro() ? -1 : sg4::this_actor::get_pid();
  for (const sg4::ActorPtr& actor : sg4::Engine::get_instance()->get_all_actors())
    if (actor->get_pid() != me && !self_ending().contains(actor->get_pid())) actor->kill();
}

std::string current_actor_name() { return sg4::Actor::is_maestro() ? "maestro" : sg4::this_actor::get_name(); }

std::string error_message(std::exception_ptr error) {
  try {
    std::rethrow_exception(std::move(error));
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

}  // namespace edgetrain::sim
