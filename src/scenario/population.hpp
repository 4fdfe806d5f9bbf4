// Populations on host slots (population.hosts "slots", docs/how-to/populations.md): how many devices a
// round may select, and the slots each site gets for them, written as the platform the run loads.
#pragma once

#include <cstddef>

#include "scenario/scenario.hpp"

namespace edgetrain::scenario {

// The most devices one round of `selection` picks among `members` (over-selection included): the
// selection's K, ceil(K (1 + over_selection)), or every member. Throws ScenarioError when per_round
// exceeds the members.
size_t most_picked(const SelectionSpec& selection, size_t members);

// Fills `population`'s slots per site (population.slots_per_site, else the most a round picks, at most
// the site's devices) and the scenario's platform: the slot platform's text and its check.
void place_population(Population& population, Scenario& s);

}  // namespace edgetrain::scenario
