// Running one scenario: sets up the SimGrid engine, the data, the model and the actors,
// simulates, and writes results/<run>/. The only entry point the CLI needs.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/memory_estimate.hpp"
#include "packet/workload.hpp"

#include "scenario/scenario.hpp"

namespace edgetrain::backend {
class Backend;
}

namespace edgetrain::sim {

struct RunOptions {
  std::filesystem::path out_dir;
  bool quiet = false;
  int progress_fd = -1;  // >= 0: the progress as JSON lines to this descriptor (report/progress.hpp)
  std::vector<std::string> simgrid_args;  // --cfg=... and --log=... passed through to SimGrid
  size_t threads = 1;                     // --threads: workers that run the real steps
  // out_dir is the default (no --out): warn when it holds the results of a different scenario
  // (run_warnings.hpp).
  bool warn_replacing = false;
  // edgetrain crosscheck: called once the run ended (not when interrupted) with every transfer it
  // made between two hosts (sim/core/transfer_log.hpp) and the count of a host's messages to
  // itself; returns files to write into the results folder with the run's own (name -> content).
  std::function<std::map<std::string, std::string>(const packet::Workload&, int64_t local)> crosscheck;
  // Real training under MPI: the devices' learners placed on the worker ranks (backend/learning.hpp).
  std::function<std::unique_ptr<backend::Backend>(std::unique_ptr<backend::Backend>, const backend::MemoryEstimate&)>
      place_learners;
  backend::LearnerPlacement placement;  // ... and what this rank's memory estimate counts then
};

// Exit status of a run: 0 completed or target reached, 3 diverged, 130 interrupted.
// Bad input (platform, data, model shape) throws PlatformError, learn::DataError,
// learn::ModelError or learn::PartitionError before anything is simulated; an unusable
// options.out_dir throws report::OutputError before that. An exception an actor threw is
// rethrown once the results (status "failed") are written.
int run_scenario(const scenario::Scenario& scenario, const RunOptions& options);

// `edgetrain validate`: loads the platform, data and model as a run would, simulates nothing,
// and returns a description of what would run.
std::string check_scenario(const scenario::Scenario& scenario, const RunOptions& options);

}  // namespace edgetrain::sim
