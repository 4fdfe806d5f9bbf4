// Rank 0's side of the worker ranks: it asks them to build their learning side when the run trains for
// real, places the devices' learners on them, and tells them to quit when it ends, whatever ends it
// (a run, bad input, a refusal, an exception): no worker is left waiting.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/memory_estimate.hpp"
#include "mpi/channel.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::mpi {

class WorkerGroup {
 public:
  explicit WorkerGroup(int ranks) : ranks_(ranks) {}
  ~WorkerGroup() { quit(); }
  WorkerGroup(const WorkerGroup&) = delete;
  WorkerGroup& operator=(const WorkerGroup&) = delete;

  int workers() const { return ranks_ - 1; }
  // The workers build their learning side (each from its own command line, the same as rank 0's); then
  // `local`'s devices are theirs. Throws a WorkerError naming the first worker that could not build.
  // `memory` is rank 0's estimate; each worker answers with its own.
  std::unique_ptr<backend::Backend> place(std::unique_ptr<backend::Backend> local, const scenario::Scenario& scenario,
                                          const backend::MemoryEstimate& memory);
  // Tells every worker to return (once).
  void quit();
  bool placed() const { return placed_; }
  const Channel& channel() const { return channel_; }
  // Each rank's memory estimate, rank 0 first (once placed).
  const std::vector<double>& memory_estimates() const { return estimates_; }

 private:
  int ranks_;
  Channel channel_;
  std::vector<double> estimates_;
  bool placed_ = false, quit_ = false;
};

// Why a scenario cannot run on MPI workers, with the way out; empty when it can.
std::string refusal_under_mpi(const scenario::Scenario& scenario);

}  // namespace edgetrain::mpi
