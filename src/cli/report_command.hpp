// `edgetrain report`: see report_command.cpp.
#pragma once

#include <string>
#include <vector>

namespace edgetrain::cli {

// ARGS are the words after `report`; returns the exit status.
int report_command(const std::vector<std::string>& args);

}  // namespace edgetrain::cli
