// How the synchronous server combines one round's gradients: mode sync takes the plain mean
// at the configured learning rate; mode scadles weights each gradient by its batch
// (training.weighting = batch: b_i / sum b) and scales the learning rate with the round's
// global batch (training.lr_scaling = linear: lr * sum b / base_global_batch). Each ScaDLES
// ingredient can be switched off alone. Pure arithmetic, unit-tested without a simulator.
#pragma once

#include <cstdint>
#include <vector>

#include "scenario/scenario.hpp"

namespace edgetrain::sim {

struct Aggregation {
  std::vector<double> weights;  // per device, summing to 1
  double lr = 0;
};

Aggregation aggregation_for(const scenario::TrainingSpec& training, int64_t base_global_batch,
                            const std::vector<int64_t>& samples_per_device);

}  // namespace edgetrain::sim
