// The compute model: a roofline per device class, layer by layer. One training step of `batch`
// samples costs, for each layer, the larger of its FLOPs over the compute ceiling and its bytes over
// the memory ceiling, each ceiling scaled by the efficiency of the layer's kind, plus a fixed
// per-layer overhead (dispatch, kernel launches). The backward pass costs twice the forward, in
// FLOPs and in bytes, as the FLOP model assumes (learn::Model::step_flops_per_sample).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "compute/layer.hpp"

namespace edgetrain::compute {

struct Profile {
  std::string name;   // as given to --device: "rpi4"
  std::string about;  // one line: the hardware, and where the figures come from
  double flops_s = 0;           // compute ceiling: FLOP/s that dense and convolution layers attain
  double bytes_s = 0;           // memory ceiling: bytes/s of activation and weight traffic
  double layer_overhead_s = 0;  // fixed seconds per layer and step (forward and backward)
  // Share of both ceilings each kind attains (Kind order); dense and convolution are the reference.
  std::array<double, kKinds> efficiency{1, 1, 1, 1, 1, 1};
};

struct StepCost {
  double step_s = 0;
  std::array<double, kKinds> by_kind_s{};  // seconds per kind; they add up to step_s
};

// Training FLOPs and bytes of a step: forward + a backward pass costing twice it.
inline constexpr double kTrainingFactor = 3.0;

StepCost step_cost(const Layers& layers, int64_t batch, const Profile& profile);

// The FLOP model the compute model replaces: training FLOPs / speed.
double flop_model_step_s(const Layers& layers, int64_t batch, double flops_s);

}  // namespace edgetrain::compute
