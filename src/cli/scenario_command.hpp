// What the commands that take a scenario (run, validate, and schema, which reads the same options)
// share: one set of options, SimGrid's flags passed through wherever they stand, the --threads
// count, the scenario loaded with --seed and --set, and how an error ends the command. The sweep
// command reads its counts and SimGrid's flags, and ends on an error, the same way.
#pragma once

#include <boost/program_options/options_description.hpp>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"
#include "sim/core/run.hpp"

namespace edgetrain::cli {

// One of SimGrid's own flags (--cfg=..., --log=...): passed through to the simulator, never read
// as an option of edgetrain's.
bool simgrid_flag(const std::string& word);

// --threads N, --jobs N: a whole number from 1 to 256; throws boost's program_options error
// "OPTION: expected a whole number from 1 to 256, got "TEXT"" (the usage follows it).
size_t parse_count(const std::string& option, const std::string& text);

// "edgetrain: MESSAGE" on stderr, one line; returns `status`, the command's exit status.
int fail(const std::string& message, int status = 2);

// An error no command expected: the user's input (util::InputError) is its message and exit 2,
// anything else "internal error: ..." and exit 1.
int input_or_internal(const std::exception& e);

// The options of run, validate and schema, as --help shows them.
boost::program_options::options_description scenario_options();

struct ScenarioArgs {
  std::string scenario_file, out_dir;
  std::vector<std::string> sets, simgrid_args;
  std::optional<std::string> seed;  // checked like the scenario's seed key (parse_seed_option)
  size_t threads = 1;               // --threads, else the machine's cores
  bool quiet = false;
  int progress_fd = -1;
};

// Reads the words after `command` (run, validate or schema) into `out`. Returns the status to end
// with at once: 2 after a mistake in them (its message and the usage on stderr), 0 after --help
// (the help printed); nullopt when the command goes on.
std::optional<int> read_scenario_args(const std::string& command, const std::vector<std::string>& words,
                                      ScenarioArgs& out);

// Loads the scenario `args` name (with --seed and --set) and returns what `work` returns, given it
// and the run's options. What is thrown ends the command with one line: interrupted before the
// simulation started 130, out of memory 2, else input_or_internal.
int with_scenario(const ScenarioArgs& args,
                  const std::function<int(const scenario::Scenario&, const sim::RunOptions&)>& work);

}  // namespace edgetrain::cli
