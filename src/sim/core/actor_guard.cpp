// See actor_guard.hpp.
#include "sim/core/actor_guard.hpp"

#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

void end_simulation() { sg4::Actor::kill_all(); }

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
