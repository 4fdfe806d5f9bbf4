// Split learning (strategy.kind splitfed; docs/explanation/strategies.md): where the model is cut. The
// device runs the model's first `cut_layers` modules (personal_layers.hpp's modules), with the layers
// without weights that follow the last of them (its pooling, its activation); the server runs the rest.
// From the model's layer description (learn::LayerCosts, the catalogue's for a catalogued model): each
// side's forward FLOPs and the activations at the cut. Plain C++: no LibTorch, no SimGrid.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "learn/layer_cost.hpp"
#include "learn/layer_info.hpp"

namespace edgetrain::strategy {

struct SplitPlan {
  int64_t cut = 0;                   // modules on the device
  std::string cut_module;            // the last of them, e.g. "fc1"
  std::vector<bool> server_tensors;  // per parameter tensor of the model: true for the server's
  int64_t device_params = 0, server_params = 0;
  learn::LayerCosts device_layers;  // the device's compute layers (what a compute profile charges it)
  double device_forward_flops = 0, server_forward_flops = 0;  // one sample's forward pass, each side
  int64_t activation_bytes = 0;  // one sample's activations at the cut, dense fp32 (and their gradient)
  // A training step of `samples` on each side: forward + backward (twice the forward), as the model's cost.
  double device_step_flops(int64_t samples) const { return 3.0 * device_forward_flops * static_cast<double>(samples); }
  double server_step_flops(int64_t samples) const { return 3.0 * server_forward_flops * static_cast<double>(samples); }
};

// The cut after `cut` modules of `model` (named in errors), whose parameter tensors are `tensors` and whose
// forward layers are `layers`, in order. Each module is one layer with weights (weight_bytes > 0), in the
// same order. A ScenarioError in one line when the cut leaves the server nothing, when the modules do not
// map one to one onto the layers with weights (a TorchScript model that reuses a module, or runs them out
// of their order), or when the cut's output is not known.
SplitPlan split_plan(int64_t cut, const std::vector<learn::LayerInfo>& tensors, const learn::LayerCosts& layers,
                     const std::string& model);

}  // namespace edgetrain::strategy
