// The one exception type the scenario module lets escape: the input readers' (input/error.hpp),
// so that an error in a quantity or in the JSON text and one in a scenario key read the same.
#pragma once

#include "input/error.hpp"

namespace edgetrain::scenario {

using ScenarioError = input::Error;

}  // namespace edgetrain::scenario
