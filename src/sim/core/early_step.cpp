// See early_step.hpp.
#include "sim/core/early_step.hpp"

#include <cstdlib>
#include <memory>
#include <string_view>

#include "sim/core/run_state.hpp"
#include "sim/core/step_charges.hpp"

namespace edgetrain::sim {

std::unique_ptr<EarlySteps> EarlySteps::for_run(const RunState& state) {
  // The tests' switch: the same run with every step started late must give the same bytes.
  if (const char* early = std::getenv("EDGETRAIN_EARLY_STEPS"); early && std::string_view(early) == "0") return nullptr;
  const scenario::Scenario& s = state.scenario;
  const bool certain = state.backend.trains() && !s.faults && !(s.traces && !s.traces->availability.empty()) &&
                       !s.privacy.secure_aggregation && !state.slots &&
                       !(state.step_charges && state.step_charges->split());
  return certain ? std::unique_ptr<EarlySteps>(new EarlySteps(state.devices.size())) : nullptr;
}

void EarlySteps::start(RunState& state, size_t device, const ModelMessage& model) {
  if (state.streams[device] || model.secure) return;  // a stream's batch is what has arrived by the step
  const int64_t batch_size = state.devices[device].batch_size;
  // The device's own samples, in the order it reads them (nothing else reads it), then those injected.
  std::vector<int64_t> batch = state.static_order(device).take(batch_size);
  batch.insert(batch.end(), model.injected.begin(), model.injected.end());
  backend::DeviceLearner& learner = state.backend.device(device);
  learner.receive(model.model);
  learner.start_step(batch);
  started_[device] = std::move(batch);
}

std::optional<std::vector<int64_t>> EarlySteps::claim(size_t device) {
  std::optional<std::vector<int64_t>> batch = std::move(started_[device]);
  started_[device].reset();
  return batch;
}

}  // namespace edgetrain::sim
