// The `edgetrain` command: run and validate scenarios, print the scenario schema.
// Exit status: 0 success, 2 bad input (one clear message naming what is wrong),
// 3 the run diverged, 1 an internal failure, 130 interrupted.
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cli/compare_command.hpp"
#include "cli/fleet_command.hpp"
#include "cli/kernels.hpp"
#include "cli/plot_command.hpp"
#include "cli/report_command.hpp"
#include "cli/sweep_command.hpp"
#include "scenario/load.hpp"
#include "scenario/schema.hpp"
#include "scenario/warnings.hpp"
#include "sim/core/run.hpp"
#include "sim/core/run_warnings.hpp"
#include "sim/core/stop_signal.hpp"
#include "util/input_error.hpp"
#include "util/printable.hpp"
#include "util/stop_flag.hpp"

namespace po = boost::program_options;
using namespace edgetrain;

namespace {

constexpr const char* kUsage =
    "Usage: edgetrain run SCENARIO.json [--out DIR] [--seed N] [--set key.path=value]... [--threads N] [--quiet]\n"
    "   or: edgetrain validate SCENARIO.json [--seed N] [--set key.path=value]...\n"
    "   or: edgetrain sweep SWEEP.json [--jobs N] [--out DIR] [--threads T] [--emit-jobs FILE] [--emit-slurm FILE]\n"
    "   or: edgetrain schema        (the scenario keys, as a Markdown table)\n"
    "   or: edgetrain fleet FLEET.json -o PLATFORM.xml [--seed N]   (a platform from a fleet description)\n"
    "   or: edgetrain plot RUN_OR_SWEEP_DIR|RUN_DIR... [--out DIR] [--dpi N] [--y COL]... [--target COL=V]   (plot --help)\n"
    "   or: edgetrain report RUN_OR_SWEEP_DIR [-o FILE]   (one self-contained report.html; report --help)\n"
    "   or: edgetrain compare RUN_DIR RUN_DIR... [--format text|json] [--all]   (compare --help)\n"
    "   or: edgetrain --help | --version\n"
    "SimGrid's own flags (--cfg=..., --log=...) pass through to the simulator.\n";

// Where an installed user finds the reference (the man page is generated from this help).
constexpr const char* kDocs =
    "Documentation: man edgetrain; README.md and docs/ in /usr/share/doc/edgetrain (the .deb) or\n"
    "PREFIX/share/doc/edgetrain (cmake --install); the scenarios, platforms, sweeps and plotting scripts\n"
    "in /usr/share/edgetrain or PREFIX/share/edgetrain.\n";

constexpr const char* kCommands = "run, validate, sweep, fleet, plot, report, compare or schema";

struct Cli {
  std::string command, scenario_file, out_dir;
  std::vector<std::string> sets, simgrid_args;
  std::optional<std::string> seed;  // checked like the scenario's seed key (parse_seed_option)
  std::optional<std::string> threads;
  bool quiet = false, help = false;
};

po::options_description run_options() {
  po::options_description o("options");
  o.add_options()("help,h", "this help")("out,o", po::value<std::string>(),
                                         "output folder (default: results/<scenario name>)")(
      "seed", po::value<std::string>(), "override the scenario's seed")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a scenario key by its dotted path, e.g. --set training.lr=0.1 (repeatable)")(
      "threads,j", po::value<std::string>(),
      "workers that run the real training steps (default: the number of cores; results do not depend on it)")(
      "quiet,q", "no progress line on a terminal, only warnings and the summary");
  return o;
}

Cli parse(int argc, char** argv) {
  Cli cli;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--cfg=", 0) == 0 || a.rfind("--log=", 0) == 0) {
      cli.simgrid_args.push_back(a);
    } else {
      args.push_back(a);
    }
  }
  if (args.empty()) throw po::error(std::string("missing command (") + kCommands + ")");
  cli.command = args[0];
  if (cli.command == "--help" || cli.command == "-h" || cli.command == "help") {
    cli.help = true;
    return cli;
  }
  if (cli.command == "--version") return cli;
  if (cli.command != "run" && cli.command != "validate" && cli.command != "schema") {
    throw po::error("unknown command \"" + cli.command + "\" (expected " + kCommands + ")");
  }
  po::options_description visible = run_options();
  po::options_description all;
  all.add(visible).add_options()("scenario", po::value<std::string>());
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(std::vector<std::string>(args.begin() + 1, args.end()))
                .options(all)
                .positional(positional)
                .run(),
            vm);
  po::notify(vm);
  cli.help = vm.count("help") > 0;
  if (vm.count("scenario")) cli.scenario_file = vm["scenario"].as<std::string>();
  if (vm.count("out")) cli.out_dir = vm["out"].as<std::string>();
  if (vm.count("seed")) cli.seed = vm["seed"].as<std::string>();
  if (vm.count("threads")) cli.threads = vm["threads"].as<std::string>();
  if (vm.count("set")) cli.sets = vm["set"].as<std::vector<std::string>>();
  cli.quiet = vm.count("quiet") > 0;
  if (!cli.help && cli.command != "schema" && cli.scenario_file.empty()) {
    throw po::error("missing SCENARIO.json for \"" + cli.command + "\"");
  }
  return cli;
}

// --threads N: 1 to 256 workers; the default is the machine's cores.
size_t parse_threads(const std::optional<std::string>& text) {
  if (!text) return std::max(1u, std::thread::hardware_concurrency());
  size_t used = 0;
  long value = 0;
  try {
    value = std::stol(*text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text->size() || value < 1 || value > 256) {
    throw po::error("--threads: expected a whole number from 1 to 256, got \"" + util::printable(*text) + "\"");
  }
  return static_cast<size_t>(value);
}

int fail(const std::string& message, int status = 2) {
  std::fprintf(stderr, "edgetrain: %s\n", message.c_str());
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  sim::install_interrupt_handler();  // first thing: a signal during set-up still ends the run cleanly
  // Before any library picks its kernels (may execute the program again, its environment completed).
  if (const std::string wrong = cli::pin_kernels(argv); !wrong.empty()) return fail(wrong);
  // Commands that read their own arguments (and start no SimGrid engine).
  using Command = int (*)(const std::vector<std::string>&);
  const std::map<std::string, Command> own_arguments = {{"fleet", cli::fleet_command},
                                                        {"sweep", cli::sweep_command},
                                                        {"plot", cli::plot_command},
                                                        {"report", cli::report_command},
                                                        {"compare", cli::compare_command}};
  if (argc > 1) {
    if (const auto it = own_arguments.find(argv[1]); it != own_arguments.end())
      return it->second({argv + 2, argv + argc});
  }
  Cli cli;
  size_t threads = 1;
  try {
    cli = parse(argc, argv);
    threads = parse_threads(cli.threads);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "edgetrain: %s\n%s", e.what(), kUsage);
    return 2;
  }
  // Handled before SimGrid's Engine exists: it would consume --help and --version itself.
  if (cli.help) {
    std::cout << kUsage << "\n" << run_options() << "\n" << kDocs;
    return 0;
  }
  if (cli.command == "--version") {
    std::cout << "edgetrain 0.1 (SimGrid 3.32, LibTorch 1.13)\n";
    return 0;
  }
  if (cli.command == "schema") {
    std::cout << scenario::schema_markdown();
    return 0;
  }
  try {
    std::optional<uint64_t> seed;
    if (cli.seed) seed = scenario::parse_seed_option(*cli.seed);
    const scenario::Scenario sc = scenario::load_scenario(cli.scenario_file, cli.sets, seed);
    sim::RunOptions options;
    options.quiet = cli.quiet;
    options.simgrid_args = cli.simgrid_args;
    options.threads = threads;
    options.out_dir =
        cli.out_dir.empty() ? std::filesystem::path("results") / sc.name : std::filesystem::path(cli.out_dir);
    options.warn_replacing = cli.out_dir.empty();
    if (cli.command == "validate") {
      const std::string checked = sim::check_scenario(sc, options);
      if (sim::interrupt_requested()) return fail("interrupted", 130);
      sim::print_warnings(scenario::warnings(sc));  // once it is known valid: bad input stays one line
      std::cout << scenario::describe(sc) << checked << "scenario is valid\n";
      return 0;
    }
    return sim::run_scenario(sc, options);
  } catch (const util::Interrupted& e) {  // before the simulation started: nothing was written
    return fail(std::string(e.what()) + " (nothing was simulated or written)", 130);
  } catch (const std::bad_alloc&) {  // set-up phases name themselves (sim::MemoryError); this is the rest
    return fail("out of memory");
  } catch (const std::exception& e) {
    // Every module marks its input errors (util::InputError): the user's to fix, exit 2.
    if (dynamic_cast<const util::InputError*>(&e)) return fail(e.what());
    return fail(std::string("internal error: ") + e.what(), 1);
  }
}
