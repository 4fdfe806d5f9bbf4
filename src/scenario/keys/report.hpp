// The keys of what a run measures and when it ends: evaluation (`eval`), the stop conditions
// (`stop`) and the output files' settings (`report`); and the rules on the stop conditions.
#pragma once

#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> report_rows();  // eval.*, stop.*, report.*
std::vector<Rule> report_rules();

}  // namespace edgetrain::scenario::keys
