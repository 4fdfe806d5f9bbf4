// Sweeps handed to other engines: command lines for GNU parallel (or ssh, or a shell loop) and a
// SLURM job-array script that runs one of those lines per array task.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace edgetrain::sweep {

// `word` quoted for a POSIX shell: as it is when it only holds safe characters, else in single
// quotes (a ' inside written '\'').
std::string shell_quote(const std::string& word);

// The words joined by spaces, each quoted.
std::string command_line(const std::vector<std::string>& argv);

// A job-array batch script: task i runs line i of `jobs_file` (which holds `tasks` lines, each
// ending in "--threads N") with --threads replaced by the task's ${SLURM_CPUS_PER_TASK}.
std::string slurm_script(const std::filesystem::path& jobs_file, size_t tasks, size_t cpus_per_task,
                         const std::string& job_name, const std::filesystem::path& log_dir);

}  // namespace edgetrain::sweep
