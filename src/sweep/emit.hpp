// Sweeps handed to other engines: command lines for GNU parallel (or ssh, or a shell loop) and a
// SLURM job-array script that runs one of those lines per array task. Both formats are one command
// per line, so no field may hold a control character (a newline would start a command of its
// own): every field is checked (EmitError naming it) and quoted for whoever reads it, bash for the
// commands, sbatch for the #SBATCH lines.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/input_error.hpp"

namespace edgetrain::sweep {

class EmitError : public std::runtime_error, public util::InputError {
 public:
  using std::runtime_error::runtime_error;
};

// Throws EmitError "FIELD: "TEXT" holds a control character (\xNN), which an emitted job script
// cannot carry" when `text` holds a byte below 0x20 or 0x7f.
void check_script_field(const std::string& field, const std::string& text);

// Throws EmitError "--out: ... holds a backslash ..." when `log_dir` holds one: SLURM turns every
// %A and %a of an --output path with a \ off (and drops the \), so the logs could not be named.
void check_slurm_log_dir(const std::filesystem::path& log_dir);

// `word` quoted for a POSIX shell: as it is when it only holds safe characters, else in single
// quotes (a ' inside written '\''). A control character in it is an EmitError.
std::string shell_quote(const std::string& word);

// `word` quoted for an #SBATCH line, as sbatch reads it (not a shell: double quotes, \ escaping
// \ and "). A control character in it is an EmitError.
std::string sbatch_quote(const std::string& word);

// The words joined by spaces, each quoted.
std::string command_line(const std::vector<std::string>& argv);

// A job-array batch script: task i runs line i of `jobs_file` (which holds `tasks` lines, each
// ending in "--threads N") with --threads replaced by the task's ${SLURM_CPUS_PER_TASK}; its log in
// `log_dir` (checked by check_slurm_log_dir). With `ranks` > 1 each task is one run of that many MPI
// ranks (`srun --mpi=pmix`: rank 0 simulates, the others train; docs/how-to/mpi.md).
std::string slurm_script(const std::filesystem::path& jobs_file, size_t tasks, size_t cpus_per_task,
                         const std::string& job_name, const std::filesystem::path& log_dir, size_t ranks = 1);

}  // namespace edgetrain::sweep
