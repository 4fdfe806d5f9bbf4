// See remote_backend.hpp.
#include "mpi/remote_backend.hpp"

#include "backend/memory_estimate.hpp"
#include "backend/mode.hpp"

namespace edgetrain::mpi {

RemoteBackend::RemoteBackend(std::unique_ptr<backend::Backend> local, const scenario::Scenario& scenario,
                             Channel& channel, int ranks)
    : local_(std::move(local)),
      scenario_(scenario),
      channel_(channel),
      steps_per_update_(backend::Mode(scenario.training, scenario.devices.size()).steps_per_update()) {
  for (int rank = 1; rank < ranks; ++rank) links_.push_back(std::make_unique<WorkerLink>(rank));
  devices_.resize(scenario.devices.size());
}

backend::DeviceLearner& RemoteBackend::device(size_t index) {
  std::unique_ptr<RemoteLearner>& d = devices_.at(index);
  if (!d) {
    const int rank = backend::LearnerPlacement::owner(index, static_cast<int>(links_.size()));
    WorkerLink& owner = *links_.at(static_cast<size_t>(rank - 1));
    // ScaDLES's adaptive switch counts compressed updates; -1 says the device has none to count.
    const int64_t compressed = scenario_.compression.adaptive ? 0 : -1;
    d = std::make_unique<RemoteLearner>(index, scenario_.devices.at(index).name, owner, channel_, compressed,
                                        steps_per_update_);
  }
  return *d;
}

// The workers' steps of devices a fault or the run's end cut finish there and are dropped.
void RemoteBackend::quiesce() {
  for (auto& d : devices_)
    if (d) d->abandon();
  local_->quiesce();
}

}  // namespace edgetrain::mpi
