// A worker rank's life: it waits for rank 0's build (or quit, when rank 0 ends before any real training:
// bad input, a refusal, a timing-only run), sets up the learning side as rank 0 did, from the same command
// line, and runs rank 0's commands on its devices' real learners until quit. Nothing here prints: every
// failure goes back to rank 0, which reports it.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "backend/learning.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::mpi {

struct WorkerSetup {
  std::shared_ptr<const scenario::Scenario> scenario;  // first: the learning side refers to it
  std::unique_ptr<backend::Learning> learning;
  size_t threads = 1;  // the worker pool's size (--threads)
};

// Returns once rank 0 said quit. `build` throws what rank 0 is told.
void run_worker(const std::function<WorkerSetup()>& build);

}  // namespace edgetrain::mpi
