// See split_summary.hpp.
#include "sim/core/split_summary.hpp"

#include "sim/core/step_charges.hpp"
#include "sim/core/wire.hpp"

namespace edgetrain::sim {

void summarize_split(const RunState& state, nlohmann::json& extra) {
  const strategy::SplitPlan* plan = state.step_charges ? state.step_charges->split() : nullptr;
  if (!plan) return;
  const int64_t batch = state.scenario.training.batch_size;
  const double total = plan->device_forward_flops + plan->server_forward_flops;
  extra["split"] = {
      {"cut_layers", plan->cut},
      {"cut_module", plan->cut_module},
      {"device_params", plan->device_params},
      {"server_params", plan->server_params},
      {"device_flops_share", total > 0 ? plan->device_forward_flops / total : 0.0},
      {"server_step_flops_per_sample", 3.0 * plan->server_forward_flops},
      {"activation_bytes_per_sample", plan->activation_bytes},
      // Each local step sends one such message up (the activations) and one down (their gradient).
      {"activation_bytes_per_step", plan->activation_bytes * batch},
      {"activation_message_bytes", message_bytes(plan->activation_bytes * batch)},
  };
}

}  // namespace edgetrain::sim
