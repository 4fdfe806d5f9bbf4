// The pending runs of a sweep as jobs: the command line of each (this very binary, `run`, the base
// scenario, an --set per override, --out, SimGrid's flags, --threads), and those lines written for
// other engines: one per line for GNU parallel and the like (--emit-jobs), or a SLURM job array that
// runs one line per array task (--emit-slurm).
#pragma once

#include <string>
#include <vector>

#include "sweep/plan.hpp"
#include "sweep/workflow.hpp"

namespace edgetrain::sweep {

// The command line of one run: absolute paths; ends in "--threads N" (the SLURM script replaces it).
std::vector<std::string> run_argv(const Plan& plan, const PlannedRun& run, const SweepOptions& options);

// Every path and name an emitted script would carry, checked before anything is written: throws
// EmitError naming the first field that holds a control character.
void check_emitted_fields(const Plan& plan, const SweepOptions& options);

// Writes the runs `pending` (indexes into plan.runs) to options.emit_jobs (or, for - , stdout:
// the messages go to stderr then) and, with options.emit_slurm, the job-array script beside its
// jobs file; says what it wrote and how to gather sweep.csv afterwards.
void emit_jobs(const Plan& plan, const std::vector<size_t>& pending, const SweepOptions& options);

}  // namespace edgetrain::sweep
