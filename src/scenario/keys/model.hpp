// The model's keys (`model`: mlp or cnn trained for real, or a catalogue model planned in
// timing-only runs, and the catalogue model whose costs a real run charges) and the rule that
// keeps catalogue models out of real training.
#pragma once

#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> model_rows();  // model.*
std::vector<Rule> model_rules();

}  // namespace edgetrain::scenario::keys
