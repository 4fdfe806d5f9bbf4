// A real update's first step starts on the worker pool when its model is posted, not when the device
// has received it: the downlink's simulated seconds then overlap the step's wall time, and the steps of
// a round's devices run side by side whatever order their transfers end in (with --threads 2, a sync
// round of small steps otherwise waits for one step at a time). The step is the same pure function of
// (model, batch, the device's state) either way, so results do not change: it starts early only when
// the device is certain to train on this model next, with a batch it can draw now. Nothing here runs
// LibTorch; the learner does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/messages.hpp"

namespace edgetrain::sim {

struct RunState;

class EarlySteps {
 public:
  // Null when the run cannot start steps early: timing-only, streams (a batch is what has arrived by the
  // step), faults and availability traces (a transfer may fail), secure aggregation (its key phases come
  // first), split learning (a step talks to the server), populations (a slot changes devices).
  static std::unique_ptr<EarlySteps> for_run(const RunState& state);

  // `model` is posted to `device`, which waits for it with nothing ahead of it: its first step starts.
  void start(RunState& state, size_t device, const ModelMessage& model);
  // The device received its model: the first step's batch (injected samples included) if it started
  // early (the learner has then received the model), else nothing.
  std::optional<std::vector<int64_t>> claim(size_t device);

 private:
  explicit EarlySteps(size_t devices) : started_(devices) {}
  std::vector<std::optional<std::vector<int64_t>>> started_;
};

}  // namespace edgetrain::sim
