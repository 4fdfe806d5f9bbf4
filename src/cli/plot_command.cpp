// `edgetrain plot RUN_OR_SWEEP_DIR [--out DIR] [--format png|svg|pdf] [--y COL]... [--x COL] [--by COL]`:
// a run's figures (accuracy against time and bytes, buffers, bytes per device and link, time
// splits) or a sweep's (a summary figure against a swept value, by another), drawn by matplotlib.
// The options are read by the script (src/plot/edgetrain_plots.py), so they are declared once.
#include "cli/commands.hpp"

#include "cli/plot_script.hpp"

namespace edgetrain::cli {

int plot_command(const std::vector<std::string>& args) { return run_plot_script("plot", args); }

}  // namespace edgetrain::cli
