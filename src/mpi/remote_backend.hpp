// Rank 0's back-end under MPI: the stores (aggregation, evaluation) stay those of the LibTorch back-end
// rank 0 built, while each device's learner forwards its calls to the worker rank that owns the device
// (1 + device % workers), where the device's real TorchDevice runs. A step is a pure function of the
// snapshot, the batch and the device's own state, so where it runs changes no result.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "backend/backend.hpp"
#include "mpi/channel.hpp"
#include "mpi/remote_learner.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::mpi {

class RemoteBackend : public backend::Backend {
 public:
  // `ranks`: the job's size (workers are ranks 1 .. ranks-1); the workers have built their learning side.
  RemoteBackend(std::unique_ptr<backend::Backend> local, const scenario::Scenario& scenario, Channel& channel, int ranks);

  const backend::ModelCost& cost() const override { return local_->cost(); }
  bool trains() const override { return local_->trains(); }
  backend::DeviceLearner& device(size_t index) override;
  std::unique_ptr<backend::ModelStore> make_store(const std::vector<size_t>& members) override {
    return local_->make_store(members);
  }
  std::unique_ptr<backend::ModelStore> make_adopting_store(const std::vector<size_t>& members, size_t index) override {
    return local_->make_adopting_store(members, index);
  }
  std::unique_ptr<backend::ModelStore> make_delta_store(size_t count) override { return local_->make_delta_store(count); }
  void quiesce() override;
  std::vector<std::pair<std::string, double>> declared_sizes() const override { return local_->declared_sizes(); }
  void use_strategy(std::shared_ptr<policy::StrategyPolicy> strategy) override { local_->use_strategy(std::move(strategy)); }

 private:
  std::unique_ptr<backend::Backend> local_;
  const scenario::Scenario& scenario_;
  Channel& channel_;
  int64_t steps_per_update_;
  std::vector<std::unique_ptr<WorkerLink>> links_;  // per worker rank
  std::vector<std::unique_ptr<RemoteLearner>> devices_;  // made on first use, as the local back-end's
};

}  // namespace edgetrain::mpi
