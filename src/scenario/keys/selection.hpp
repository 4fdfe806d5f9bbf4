// Client selection in synchronous rounds (`training.selection`: every device, a seeded sample, the
// available devices, or Oort's guided selection) and the rule on its counts and the modes it
// needs. A new selection policy adds its kind and keys here.
#pragma once

#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> selection_rows();  // training.selection.*: after the other training keys
std::vector<Rule> selection_rules();

}  // namespace edgetrain::scenario::keys
