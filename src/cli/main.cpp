// The `edgetrain` program: installs the interrupt handler, pins the kernels, and hands the command
// line to the command it names, through one table (each command is a file of its own, see
// commands.hpp). The usage is made from the table. Exit status: 0 success, 2 bad input (one clear
// message naming what is wrong), 3 the run diverged, 1 an internal failure, 130 interrupted.
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/allocator_pages.hpp"
#include "cli/commands.hpp"
#include "cli/kernels.hpp"
#include "cli/scenario_command.hpp"
#include "sim/core/stop_signal.hpp"

using namespace edgetrain;

namespace {

struct Command {
  std::string_view name;
  int (*run)(const std::vector<std::string>& args);  // given the words after the name
  std::string_view usage;                            // its line of the usage, after "edgetrain "
  // SimGrid's flags may also come before the name (edgetrain --cfg=... run ...): they are given to
  // the command first among its words.
  bool simgrid_flags_first;
};

// In the order of the usage.
constexpr Command kCommands[] = {
    {"run", cli::run_command,
     "run SCENARIO.json [--out DIR] [--seed N] [--set key.path=value]... [--threads N] [--quiet]", true},
    {"validate", cli::validate_command, "validate SCENARIO.json [--seed N] [--set key.path=value]...", true},
    {"crosscheck", cli::crosscheck_command,
     "crosscheck SCENARIO.json [--out DIR] [--set key.path=value]...   (flow-level times against ns-3's TCP)", true},
    {"calibrate", cli::calibrate_command,
     "calibrate PLATFORM.xml -o CALIBRATION.json [--server HOST]   (the flow model fitted to ns-3's TCP)", true},
    {"sweep", cli::sweep_command,
     "sweep SWEEP.json [--jobs N] [--out DIR] [--threads T] [--emit-jobs FILE] [--emit-slurm FILE [--ranks N]]", false},
    {"schema", cli::schema_command, "schema        (the scenario keys, as a Markdown table)", true},
    {"fleet", cli::fleet_command, "fleet FLEET.json -o PLATFORM.xml [--seed N]   (a platform from a fleet description)",
     false},
    {"plot", cli::plot_command,
     "plot RUN_OR_SWEEP_DIR|RUN_DIR... [--out DIR] [--dpi N] [--y COL]... [--target COL=V]   (plot --help)", false},
    {"report", cli::report_command,
     "report RUN_OR_SWEEP_DIR [-o FILE]   (one self-contained report.html; report --help)", false},
    {"compare", cli::compare_command, "compare RUN_DIR RUN_DIR... [--format text|json] [--all]   (compare --help)",
     false},
    {"cost", cli::cost_command,
     "cost --model MODEL --device CLASS|PROFILE.json --batch B [--input CxHxW] [--json]   (one training step)", false},
    {"calibrate-compute", cli::calibrate_compute_command,
     "calibrate-compute [-o PROFILE.json]   (this machine's profile, from real LibTorch steps)", false},
};

constexpr const char* kExpected =
    "run, validate, crosscheck, calibrate, sweep, fleet, plot, report, compare, cost, calibrate-compute or schema";

// Where an installed user finds the reference (the man page is generated from the help).
constexpr const char* kDocs =
    "Documentation: man edgetrain; README.md and docs/ in /usr/share/doc/edgetrain (the .deb) or\n"
    "PREFIX/share/doc/edgetrain (cmake --install); the scenarios, platforms, sweeps and plotting scripts\n"
    "in /usr/share/edgetrain or PREFIX/share/edgetrain.\n";

// EDGETRAIN_PARENT=PID (set by the Python module, which starts each run in a session of its own):
// when that process dies, this one gets SIGTERM and ends as on any signal, its results written,
// rather than run on unwatched. Kept across the kernels' re-execution.
void stop_with_parent() {
  const char* named = std::getenv("EDGETRAIN_PARENT");
  if (!named || !*named) return;
  const std::string parent = named;
  ::unsetenv("EDGETRAIN_PARENT");  // not for this process's own children (a sweep's runs)
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (std::to_string(::getppid()) != parent) std::raise(SIGTERM);  // it died before the line above
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "edgetrain: %s\n%s", message.c_str(), cli::usage().c_str());
  return 2;
}

int dispatch(const std::vector<std::string>& words) {
  size_t at = 0;  // the command's name, after the SimGrid flags before it
  while (at < words.size() && cli::simgrid_flag(words[at])) ++at;
  if (at == words.size()) return usage_error(std::string("missing command (") + kExpected + ")");
  const std::string& name = words[at];
  for (const Command& c : kCommands) {
    if (name != c.name || (at > 0 && !c.simgrid_flags_first)) continue;
    std::vector<std::string> args(words.begin(), words.begin() + at);
    args.insert(args.end(), words.begin() + at + 1, words.end());
    return c.run(args);
  }
  // Handled before SimGrid's Engine exists: it would consume --help and --version itself.
  if (name == "--help" || name == "-h" || name == "help") return cli::print_help();
  if (name == "--version") {
    std::cout << "edgetrain 0.1 (SimGrid 3.32, LibTorch 1.13)\n";
    return 0;
  }
  return usage_error("unknown command \"" + name + "\" (expected " + kExpected + ")");
}

}  // namespace

namespace edgetrain::cli {

const std::string& usage() {
  static const std::string text = [] {
    std::string t;
    for (const Command& c : kCommands) {
      t += t.empty() ? "Usage: edgetrain " : "   or: edgetrain ";
      t.append(c.usage) += "\n";
    }
    return t + "   or: edgetrain --help | --version\n"
               "SimGrid's own flags (--cfg=..., --log=...) pass through to the simulator.\n";
  }();
  return text;
}

int print_help() {
  std::cout << usage() << "\n" << scenario_options() << "\n" << kDocs;
  return 0;
}

}  // namespace edgetrain::cli

int main(int argc, char** argv) {
  sim::install_interrupt_handler();  // first thing: a signal during set-up still ends the run cleanly
  stop_with_parent();
  cli::use_large_pages(true);        // before a fleet or a population is read
  // Before any library picks its kernels (may execute the program again, its environment completed).
  if (const std::string wrong = cli::pin_kernels(argv); !wrong.empty()) return cli::fail(wrong);
  return dispatch({argv + 1, argv + argc});
}
