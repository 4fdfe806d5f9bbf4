// The schema table assembled from the key files, one per concern (run, stream, data, model,
// training, selection, compression, faults, topology, report): schema_keys() and schema_rules()
// read it.
#pragma once

#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

// Every row, in table order (which is validation order: a row's conditions look at rows before it).
std::vector<KeySpec> table_rows();
// Every cross-key rule, in the order validation runs them.
std::vector<Rule> table_rules();

}  // namespace edgetrain::scenario::keys
