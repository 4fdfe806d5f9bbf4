// The one exception type the scenario module lets escape. Its message is the complete line
// shown to the user, starting with the JSON path (or file, or --set override) it concerns,
// so callers print what() as is and exit: control bytes quoted from the input are escaped.
#pragma once

#include <stdexcept>
#include <string>

#include "util/printable.hpp"
#include "util/input_error.hpp"

namespace edgetrain::scenario {

class ScenarioError : public std::runtime_error, public util::InputError {
 public:
  explicit ScenarioError(const std::string& message) : std::runtime_error(util::printable(message)) {}
};

}  // namespace edgetrain::scenario
