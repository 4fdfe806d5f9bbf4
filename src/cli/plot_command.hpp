// `edgetrain plot`: see plot_command.cpp.
#pragma once

#include <string>
#include <vector>

namespace edgetrain::cli {

// ARGS are the words after `plot`; returns the exit status.
int plot_command(const std::vector<std::string>& args);

}  // namespace edgetrain::cli
