// The data set's keys (`dataset`: files or synthetic clusters, and how samples are partitioned
// among devices) and the rule bounding a synthetic sample's size.
#pragma once

#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> data_rows();  // dataset.*: after training.compute, which they depend on
std::vector<Rule> data_rules();

}  // namespace edgetrain::scenario::keys
