// The exception the input readers (JSON text, quantities, and the scenario and fleet modules built
// on them) let escape. Its message is the complete line shown to the user, starting with the JSON
// path (or file, or --set override) it concerns, so callers print what() as is and exit: control
// bytes quoted from the input are escaped.
#pragma once

#include <stdexcept>
#include <string>

#include "util/input_error.hpp"
#include "util/printable.hpp"

namespace edgetrain::input {

class Error : public std::runtime_error, public util::InputError {
 public:
  explicit Error(const std::string& message) : std::runtime_error(util::printable(message)) {}
};

}  // namespace edgetrain::input
