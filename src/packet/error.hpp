// A platform element or a workload the packet-level reference cannot map to ns-3: the CLI prints
// the message as one line and exits 2.
#pragma once

#include <stdexcept>
#include <string>

#include "util/input_error.hpp"

namespace edgetrain::packet {

class MappingError : public std::runtime_error, public util::InputError {
 public:
  explicit MappingError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace edgetrain::packet
