// `edgetrain sweep SWEEP.json [--jobs N] [--out DIR] [--threads T] [--emit-jobs FILE]
// [--emit-slurm FILE [--ranks N]]`: runs every run of a sweep file as its own `edgetrain run` process, N at a
// time, resuming where an earlier sweep stopped, and gathers DIR/sweep.csv; or writes the pending
// runs as command lines (--emit-jobs) or a SLURM job array (--emit-slurm). The work is
// sweep::run_sweep; this file reads the options and turns errors into the exit status: 0 every run
// finished, 1 some run failed, 2 bad input (every bad run named), 130 interrupted.
#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <thread>

#include "cli/commands.hpp"
#include "cli/scenario_command.hpp"
#include "sim/core/simgrid_flags.hpp"
#include "sweep/plan.hpp"
#include "sweep/workflow.hpp"
#include "util/printable.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::cli {
namespace {

namespace po = boost::program_options;

constexpr const char* kUsage =
    "usage: edgetrain sweep SWEEP.json [--jobs N] [--out DIR] [--threads T] [--emit-jobs FILE] [--emit-slurm FILE [--ranks N]]\n"
    "SimGrid's own flags (--cfg=..., --log=...) are passed on to every run.\n";

po::options_description visible_options() {
  po::options_description o("options");
  o.add_options()("help,h", "this help")("jobs", po::value<std::string>(),
                                         "runs at a time (default: the number of cores)")(
      "out,o", po::value<std::string>(), "output folder (default: results/<sweep file name without .json>)")(
      "threads", po::value<std::string>(), "training threads of each run (default: max(1, cores / jobs))")(
      "emit-jobs", po::value<std::string>(),
      "write one `edgetrain run` command line per pending run to FILE (- for stdout), run nothing")(
      "emit-slurm", po::value<std::string>(),
      "write a SLURM job-array script running the pending runs to FILE (its lines beside it), run nothing")(
      "ranks", po::value<std::string>(),
      "with --emit-slurm: run each run as N MPI ranks (srun --mpi=pmix; rank 0 simulates, N-1 train)");
  return o;
}

// The flags every run would be given, tried by SimGrid in a child process (sim/simgrid_flags.hpp).
void check_simgrid_flags(const std::vector<std::string>& args) {
  std::vector<sim::EngineFlag> flags;
  for (const std::string& a : args) flags.push_back({a, util::printable(a)});
  sim::check_engine_flags({"edgetrain"}, flags);
}

// Throws on a mistake in the words; returns whether --help was asked for.
bool parse(const std::vector<std::string>& words, sweep::SweepOptions& o) {
  std::vector<std::string> args;
  for (const auto& w : words) (simgrid_flag(w) ? o.simgrid_args : args).push_back(w);
  po::options_description all;
  all.add(visible_options()).add_options()("sweep", po::value<std::string>());
  po::positional_options_description positional;
  positional.add("sweep", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  po::notify(vm);
  if (vm.count("help")) return true;
  if (!vm.count("sweep")) throw po::error("missing SWEEP.json");
  o.file = vm["sweep"].as<std::string>();
  const auto count = [&](const std::string& name, size_t fallback) {
    return vm.count(name) ? parse_count("--" + name, vm[name].as<std::string>()) : fallback;
  };
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  o.jobs = count("jobs", cores);
  o.threads = count("threads", std::max<size_t>(1, cores / o.jobs));
  if (vm.count("out")) o.out = vm["out"].as<std::string>();
  if (vm.count("emit-jobs")) o.emit_jobs = vm["emit-jobs"].as<std::string>();
  if (vm.count("emit-slurm")) o.emit_slurm = vm["emit-slurm"].as<std::string>();
  o.ranks = count("ranks", 1);
  if (o.ranks > 1 && o.emit_slurm.empty()) throw po::error("--ranks: only with --emit-slurm (an MPI run is started by srun or mpirun)");
  return false;
}

}  // namespace

int sweep_command(const std::vector<std::string>& words) {
  sweep::SweepOptions o;
  try {
    if (parse(words, o)) {
      std::cout << kUsage << "\n" << visible_options();
      return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "edgetrain: sweep: %s\n%s", e.what(), kUsage);
    return 2;
  }
  o.check_simgrid_flags = check_simgrid_flags;
  try {
    return sweep::run_sweep(o);
  } catch (const sweep::PlanError& e) {
    for (const auto& line : e.lines()) fail(line);
    return 2;
  } catch (const util::Interrupted& e) {
    return fail(std::string("sweep ") + e.what() + " (no run was started)", 130);
  } catch (const std::exception& e) {
    return input_or_internal(e);
  }
}

}  // namespace edgetrain::cli
