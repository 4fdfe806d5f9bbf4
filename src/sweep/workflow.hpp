// A whole sweep, as `edgetrain sweep SWEEP.json` does it: plans the runs (every bad one named),
// holds the output folder's lock, writes sweep.json, finds the runs earlier sweeps finished, then
// runs the others, each as its own `edgetrain run` process of this very binary, N at a time, and
// gathers DIR/sweep.csv; or writes the pending runs as command lines (--emit-jobs) or a SLURM job
// array (--emit-slurm) and runs nothing. No SimGrid here: the check of SimGrid's flags is given.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace edgetrain::sweep {

struct SweepOptions {
  std::string file;                       // SWEEP.json
  std::string out;                        // --out; "" for results/<sweep file name without .json>
  std::string emit_jobs, emit_slurm;      // "" unless given; emit_jobs "-" for stdout
  std::vector<std::string> simgrid_args;  // --cfg=... and --log=..., passed on to every run
  size_t jobs = 1;                        // runs at a time
  size_t threads = 1;                     // --threads of each run
  size_t ranks = 1;                       // --ranks: MPI ranks of each run of an emitted job array (1: no MPI)
  // Tries SimGrid's flags (when there are any) once the sweep file is read, before its runs are
  // planned, so that a bad one is one error here, not a failure of every run: throws an input
  // error naming the flag. Unset: they are not tried.
  std::function<void(const std::vector<std::string>& simgrid_args)> check_simgrid_flags;
};

// Returns the exit status: 0 every run finished (or the jobs were written), 1 some run failed, 130
// interrupted while runs ran ("edgetrain: sweep interrupted (run it again to resume)" on stderr).
// Bad input throws before any run starts: PlanError (one line per bad run) or another
// util::InputError; util::Interrupted when a signal came while planning.
int run_sweep(const SweepOptions& options);

}  // namespace edgetrain::sweep
