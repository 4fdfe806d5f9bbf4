// Populations (`population.*`, docs/how-to/populations.md): a fleet description's devices kept as
// records and placed on host slots of their site when a round selects them, and the rule that keeps
// them to what the slots support. First in the table: the platform row reads population.hosts.
#pragma once

#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> population_rows();
std::vector<Rule> population_rules();

}  // namespace edgetrain::scenario::keys
