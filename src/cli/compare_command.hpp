// `edgetrain compare`: see compare_command.cpp.
#pragma once

#include <string>
#include <vector>

namespace edgetrain::cli {

// ARGS are the words after `compare`; returns the exit status.
int compare_command(const std::vector<std::string>& args);

}  // namespace edgetrain::cli
