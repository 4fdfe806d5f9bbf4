// The training keys: what a step computes (real or timing-only), the mode (sync, scadles, async,
// local-sgd) with its own settings (ScaDLES batches and injection, staleness and buffering of
// pushes applied on arrival, local steps) and the round timeout; and the rules across them.
// Client selection is keys/selection.cpp.
#pragma once

#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

// training.compute: first of the training keys, before the data set's and the model's, which
// depend on it.
std::vector<KeySpec> compute_rows();
std::vector<KeySpec> training_rows();  // the other training.* keys but training.selection
std::vector<Rule> training_rules();

}  // namespace edgetrain::scenario::keys
