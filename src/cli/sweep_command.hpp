// `edgetrain sweep SWEEP.json ...`: runs every run of a sweep file as its own `edgetrain run`
// process, N at a time, resuming where an earlier sweep stopped, and gathers DIR/sweep.csv; or
// writes the pending runs as command lines (--emit-jobs) or a SLURM job array (--emit-slurm).
#pragma once

#include <string>
#include <vector>

namespace edgetrain::cli {

// `args`: the words after "sweep". Returns the exit status: 0 every run finished, 1 some run failed,
// 2 bad input (every bad run named), 130 interrupted.
int sweep_command(const std::vector<std::string>& args);

}  // namespace edgetrain::cli
