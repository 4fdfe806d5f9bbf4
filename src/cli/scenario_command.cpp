// See scenario_command.hpp.
#include "cli/scenario_command.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <fcntl.h>
#include <thread>

#include "cli/allocator_pages.hpp"
#include "cli/commands.hpp"
#include "scenario/load.hpp"
#include "util/input_error.hpp"
#include "util/printable.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::cli {

namespace po = boost::program_options;

bool simgrid_flag(const std::string& word) { return word.rfind("--cfg=", 0) == 0 || word.rfind("--log=", 0) == 0; }

size_t parse_count(const std::string& option, const std::string& text) {
  size_t used = 0;
  long value = 0;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < 1 || value > 256) {
    throw po::error(option + ": expected a whole number from 1 to 256, got \"" + util::printable(text) + "\"");
  }
  return static_cast<size_t>(value);
}

namespace {

// --progress-fd: a descriptor this process has open for writing (3 and up: 0-2 are the standard ones).
int parse_descriptor(const std::string& text) {
  size_t used = 0;
  int fd = -1;
  try {
    fd = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || fd < 3) {
    throw po::error("--progress-fd: expected an open file descriptor (3 or more), got \"" + util::printable(text) + "\"");
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) {
    throw po::error("--progress-fd: " + text + " is not a descriptor open for writing");
  }
  return fd;
}

}  // namespace

int fail(const std::string& message, int status) {
  std::fprintf(stderr, "edgetrain: %s\n", message.c_str());
  return status;
}

int input_or_internal(const std::exception& e) {
  // Every module marks its input errors (util::InputError): the user's to fix, exit 2.
  if (dynamic_cast<const util::InputError*>(&e)) return fail(e.what());
  return fail(std::string("internal error: ") + e.what(), 1);
}

po::options_description scenario_options() {
  po::options_description o("options");
  o.add_options()("help,h", "this help")("out,o", po::value<std::string>(),
                                         "output folder (default: results/<scenario name>)")(
      "seed", po::value<std::string>(), "override the scenario's seed")(
      "set", po::value<std::vector<std::string>>()->composing(),
      "override a scenario key by its dotted path, e.g. --set training.lr=0.1 (repeatable)")(
      "threads,j", po::value<std::string>(),
      "workers that run the real training steps (default: the number of cores; results do not depend on it)")(
      "quiet,q", "no progress line on a terminal, only warnings and the summary")(
      "progress-fd", po::value<std::string>(),
      "also write the progress as JSON lines to this open file descriptor (for programs that drive edgetrain, "
      "such as its Python module)");
  return o;
}

namespace {

// Throws on a mistake in the words; returns whether --help was asked for.
bool parse(const std::string& command, const std::vector<std::string>& words, ScenarioArgs& out) {
  std::vector<std::string> args;
  for (const std::string& w : words) (simgrid_flag(w) ? out.simgrid_args : args).push_back(w);
  po::options_description all;
  all.add(scenario_options()).add_options()("scenario", po::value<std::string>());
  po::positional_options_description positional;
  positional.add("scenario", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  po::notify(vm);
  const bool help = vm.count("help") > 0;
  if (vm.count("scenario")) out.scenario_file = vm["scenario"].as<std::string>();
  if (vm.count("out")) out.out_dir = vm["out"].as<std::string>();
  if (vm.count("seed")) out.seed = vm["seed"].as<std::string>();
  if (vm.count("set")) out.sets = vm["set"].as<std::vector<std::string>>();
  out.quiet = vm.count("quiet") > 0;
  if (vm.count("progress-fd")) out.progress_fd = parse_descriptor(vm["progress-fd"].as<std::string>());
  if (!help && command != "schema" && out.scenario_file.empty()) {
    throw po::error("missing SCENARIO.json for \"" + command + "\"");
  }
  // The default is the machine's cores.
  out.threads = vm.count("threads") ? parse_count("--threads", vm["threads"].as<std::string>())
                                    : std::max(1u, std::thread::hardware_concurrency());
  return help;
}

}  // namespace

std::optional<int> read_scenario_args(const std::string& command, const std::vector<std::string>& words,
                                      ScenarioArgs& out) {
  try {
    // Handled here, before SimGrid's Engine exists: it would consume --help itself.
    if (parse(command, words, out)) return print_help();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "edgetrain: %s\n%s", e.what(), usage().c_str());
    return 2;
  }
  return std::nullopt;
}

int with_scenario(const ScenarioArgs& args,
                  const std::function<int(const scenario::Scenario&, const sim::RunOptions&)>& work) {
  try {
    std::optional<uint64_t> seed;
    if (args.seed) seed = scenario::parse_seed_option(*args.seed);
    const scenario::Scenario sc = scenario::load_scenario(args.scenario_file, args.sets, seed);
    use_large_pages(sc.training.timing_only());  // real training's tensors: committed as used
    sim::RunOptions options;
    options.quiet = args.quiet;
    options.progress_fd = args.progress_fd;
    options.simgrid_args = args.simgrid_args;
    options.threads = args.threads;
    options.out_dir =
        args.out_dir.empty() ? std::filesystem::path("results") / sc.name : std::filesystem::path(args.out_dir);
    options.warn_replacing = args.out_dir.empty();
    return work(sc, options);
  } catch (const util::Interrupted& e) {  // before the simulation started: nothing was written
    return fail(std::string(e.what()) + " (nothing was simulated or written)", 130);
  } catch (const std::bad_alloc&) {  // set-up phases name themselves (backend::MemoryError); this is the rest
    return fail("out of memory");
  } catch (const std::exception& e) {
    return input_or_internal(e);
  }
}

}  // namespace edgetrain::cli
