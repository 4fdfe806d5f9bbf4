// The commands of `edgetrain`, one file each (src/cli/<name>_command.cpp), dispatched by main.cpp
// through its table. Each is given the words after its own name and returns the exit status: 0
// success, 2 bad input (one clear message naming what is wrong), 1 an internal failure, 130
// interrupted; and what else a command says in its file (run: 3, the run diverged).
#pragma once

#include <string>
#include <vector>

namespace edgetrain::cli {

int run_command(const std::vector<std::string>& args);
int validate_command(const std::vector<std::string>& args);
int sweep_command(const std::vector<std::string>& args);
int schema_command(const std::vector<std::string>& args);
int fleet_command(const std::vector<std::string>& args);
int plot_command(const std::vector<std::string>& args);
int report_command(const std::vector<std::string>& args);
int compare_command(const std::vector<std::string>& args);
int crosscheck_command(const std::vector<std::string>& args);
int calibrate_command(const std::vector<std::string>& args);
int cost_command(const std::vector<std::string>& args);
int calibrate_compute_command(const std::vector<std::string>& args);

// From main.cpp's table: "Usage: edgetrain run ...", one line per command, then --help and
// SimGrid's flags. Printed after a mistake in the command line of run, validate or schema.
const std::string& usage();

// `edgetrain --help` (and run, validate or schema --help): the usage, the options of run, and where
// the documentation is. The man page is made from it (help2man). Returns 0, the exit status.
int print_help();

}  // namespace edgetrain::cli
