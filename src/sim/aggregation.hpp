// How the synchronous server combines one round's gradients: mode sync takes the plain mean
// at the configured learning rate; mode scadles weights each gradient by its batch
// (training.weighting = batch: b_i / sum b) and scales the learning rate with the round's
// global batch (training.lr_scaling = linear: lr * sum b / base_global_batch). Each ScaDLES
// ingredient can be switched off alone. Mode local-sgd (sync aggregation) averages the model
// deltas weighted by the samples each was trained on (FedAvg) at training.server_lr. Only the
// devices whose update arrived in time take part in a round (training.round_timeout_s). Pure arithmetic, unit-tested without a simulator.
#pragma once

#include <cstdint>
#include <vector>

#include "scenario/scenario.hpp"

namespace edgetrain::sim {

struct Aggregation {
  std::vector<double> weights;  // per device, summing to 1
  double lr = 0;
};

// True when the server applies each update on arrival (mode async, local-sgd with async
// aggregation); false for round-based modes.
bool applies_on_arrival(const scenario::TrainingSpec& training);

// The server's step size on an update: training.server_lr for local-sgd's model deltas,
// training.lr for gradients (before any ScaDLES scaling).
double server_lr(const scenario::TrainingSpec& training);

Aggregation aggregation_for(const scenario::TrainingSpec& training, int64_t base_global_batch,
                            const std::vector<int64_t>& samples_per_device);

}  // namespace edgetrain::sim
