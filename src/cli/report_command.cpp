// `edgetrain report RUN_OR_SWEEP_DIR [-o FILE] [--y COL]... [--x COL] [--by COL]`: one
// self-contained report.html (inline SVG figures with hover tooltips, tables, the resolved
// scenario; for a sweep, its figures and runs). Written by src/plot/html_report.py, which reads the options.
#include "cli/commands.hpp"

#include "cli/plot_script.hpp"

namespace edgetrain::cli {

int report_command(const std::vector<std::string>& args) { return run_plot_script("report", args); }

}  // namespace edgetrain::cli
