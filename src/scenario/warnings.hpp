// Warnings about valid scenarios whose settings are known to go wrong or to mean something other
// than they seem: heavy-ball momentum with stale (asynchronous) updates, momentum with error
// feedback, `stop.rounds` counting single pushes in asynchronous modes, and the other traps the
// docs/reference/warnings.md documents. `edgetrain validate` and `edgetrain run` print them (even with --quiet) and go
// on: a warning never refuses a scenario. Pure functions of the typed scenario.
#pragma once

#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace edgetrain::scenario {

// One message per trap the scenario falls into, in a fixed order, each one line of the form
// "<json path>: <why>, <what to do>" (the CLI prefixes "edgetrain: warning: "). Empty when none.
std::vector<std::string> warnings(const Scenario& scenario);

}  // namespace edgetrain::scenario
