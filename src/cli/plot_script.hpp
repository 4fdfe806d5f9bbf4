// Runs the Python plotting scripts (src/plot/, installed to <prefix>/share/edgetrain/plot/) with
// Debian's /usr/bin/python3, which sees Debian's python3-matplotlib (a `python3` earlier on the
// PATH may not). EDGETRAIN_PYTHON names another interpreter.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace edgetrain::cli {

// The folder holding edgetrain_plots.py: <dir of the executable>/../share/edgetrain/plot when
// installed, else the source tree's src/plot. Empty when neither holds it.
std::filesystem::path plot_scripts_dir();

// Runs `python edgetrain_plots.py COMMAND ARGS...` and returns its exit status (128 + signal when
// a signal ended it). An interrupt of edgetrain is passed on to the script.
int run_plot_script(const std::string& command, const std::vector<std::string>& args);

}  // namespace edgetrain::cli
