// The one exception type the scenario module lets escape. Its message is the complete line
// shown to the user, starting with the JSON path (or file, or --set override) it concerns,
// so callers print what() as is and exit.
#pragma once

#include <stdexcept>
#include <string>

namespace edgetrain::scenario {

class ScenarioError : public std::runtime_error {
 public:
  explicit ScenarioError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace edgetrain::scenario
