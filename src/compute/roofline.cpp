// See roofline.hpp.
#include "compute/roofline.hpp"

#include <algorithm>

namespace edgetrain::compute {

StepCost step_cost(const Layers& layers, int64_t batch, const Profile& p) {
  StepCost c;
  const double b = static_cast<double>(batch);
  for (const Layer& l : layers) {
    const double e = p.efficiency[static_cast<size_t>(l.kind)];
    const double compute_s = kTrainingFactor * b * l.flops / (p.flops_s * e);
    const double memory_s = kTrainingFactor * (b * l.activation_bytes + l.weight_bytes) / (p.bytes_s * e);
    const double s = std::max(compute_s, memory_s) + p.layer_overhead_s;
    c.by_kind_s[static_cast<size_t>(l.kind)] += s;
    c.step_s += s;
  }
  return c;
}

double flop_model_step_s(const Layers& layers, int64_t batch, double flops_s) {
  return kTrainingFactor * static_cast<double>(batch) * forward_flops(layers) / flops_s;
}

}  // namespace edgetrain::compute
