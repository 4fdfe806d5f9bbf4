// See mpi_run.hpp.
#include "cli/mpi_run.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "backend/learning.hpp"
#include "cli/allocator_pages.hpp"
#include "cli/scenario_command.hpp"
#include "mpi/commands.hpp"
#include "mpi/remote_learner.hpp"
#include "mpi/session.hpp"
#include "mpi/worker.hpp"
#include "mpi/worker_group.hpp"
#include "scenario/load.hpp"

namespace edgetrain::cli {

namespace {

// A worker's learning side, built from its own command line as rank 0 built its own (rank 0 read the same
// words first: a mistake in them ended the run before any worker got here).
mpi::WorkerSetup build_worker(const std::vector<std::string>& words, const mpi::Session& session) {
  ScenarioArgs args;
  if (read_scenario_args("run", words, args)) throw std::runtime_error("its command line could not be read");
  std::optional<uint64_t> seed;
  if (args.seed) seed = scenario::parse_seed_option(*args.seed);
  mpi::WorkerSetup setup;
  setup.scenario = std::make_shared<const scenario::Scenario>(scenario::load_scenario(args.scenario_file, args.sets, seed));
  use_large_pages(false);
  setup.threads = args.threads;
  backend::LearningRequest request;
  request.threads = args.threads;
  request.placement = {session.size() - 1, session.rank(), static_cast<int>(mpi::kSnapshotsPerRank)};
  setup.learning = backend::prepare_learning(*setup.scenario, request);
  return setup;
}

void write_stats(const mpi::WorkerGroup& workers, int ranks) {
  const char* path = std::getenv("EDGETRAIN_MPI_STATS");
  if (!path || !*path || !workers.placed()) return;
  std::ofstream(path) << workers.channel().stats_json(ranks, workers.memory_estimates());
}

}  // namespace

int run_under_mpi(const std::vector<std::string>& words) {
  mpi::Session session;
  if (session.rank() > 0) {
    try {
      mpi::run_worker([&] { return build_worker(words, session); });
    } catch (const std::exception&) {
      // Rank 0 reports the run's failure; a worker prints nothing.
    }
    return 0;
  }
  mpi::WorkerGroup workers(session.size());  // told to quit on every way out of this function
  ScenarioArgs args;
  if (const std::optional<int> status = read_scenario_args("run", words, args)) return *status;
  const int status = with_scenario(args, [&](const scenario::Scenario& sc, const sim::RunOptions& options) {
    if (const std::string why = mpi::refusal_under_mpi(sc); !why.empty()) return fail(why);
    sim::RunOptions placed = options;
    if (workers.workers() > 0 && sc.training.timing_only()) {
      if (!options.quiet)
        std::fprintf(stderr, "edgetrain: a timing-only run trains nothing: the %d MPI worker ranks stay idle\n",
                     workers.workers());
    } else if (workers.workers() > 0) {
      placed.place_learners = [&](std::unique_ptr<backend::Backend> local, const backend::MemoryEstimate& memory) {
        return workers.place(std::move(local), sc, memory);
      };
      placed.placement = {workers.workers(), 0, static_cast<int>(mpi::kSnapshotsPerRank)};
    }
    try {
      return sim::run_scenario(sc, placed);
    } catch (const mpi::WorkerError& e) {
      return fail(e.what(), 1);
    }
  });
  workers.quit();
  write_stats(workers, session.size());
  return status;
}

}  // namespace edgetrain::cli
