// See split_plan.hpp.
#include "strategy/split_plan.hpp"

#include <algorithm>
#include <cmath>

#include "scenario/error.hpp"
#include "strategy/personal_layers.hpp"

namespace edgetrain::strategy {

SplitPlan split_plan(int64_t cut, const std::vector<learn::LayerInfo>& tensors, const learn::LayerCosts& layers,
                     const std::string& model) {
  const std::vector<size_t> module = modules_of(tensors);
  const size_t modules = module.empty() ? 0 : *std::max_element(module.begin(), module.end()) + 1;
  const auto device_modules = static_cast<size_t>(cut);
  if (device_modules >= modules)
    throw scenario::ScenarioError("strategy.cut_layers: " + std::to_string(cut) + " of " + model + "'s " +
                                  std::to_string(modules) + " modules would leave the server none");
  // The layers with weights, in forward order: module k's is the k-th.
  std::vector<size_t> weighted;
  for (size_t i = 0; i < layers.size(); ++i)
    if (layers[i].weight_bytes > 0) weighted.push_back(i);
  if (weighted.size() != modules)
    throw scenario::ScenarioError("strategy.kind: splitfed cannot cut " + model + ": its " + std::to_string(modules) +
                                  " modules do not map one to one onto the " + std::to_string(weighted.size()) +
                                  " layers with weights its forward pass runs (a module used twice, or none)");
  SplitPlan plan;
  plan.cut = cut;
  for (size_t t = 0; t < tensors.size(); ++t) {
    const bool server = module[t] >= device_modules;
    plan.server_tensors.push_back(server);
    (server ? plan.server_params : plan.device_params) += tensors[t].numel;
    if (module[t] == device_modules - 1) {
      const std::string& name = tensors[t].name;
      plan.cut_module = name.substr(0, std::min(name.size(), name.rfind('.')));
    }
  }
  // The device runs up to the server's first layer with weights: its last module's pooling and activation too.
  const size_t first_server = weighted[device_modules];
  plan.device_layers.assign(layers.begin(), layers.begin() + static_cast<std::ptrdiff_t>(first_server));
  for (size_t i = 0; i < layers.size(); ++i)
    (i < first_server ? plan.device_forward_flops : plan.server_forward_flops) += layers[i].flops;
  const double out = plan.device_layers.back().output_bytes;
  if (!(out > 0))
    throw scenario::ScenarioError("strategy.cut_layers: the output of " + model + "'s module " + plan.cut_module +
                                  " is not known; cut elsewhere");
  plan.activation_bytes = std::llround(out);
  return plan;
}

}  // namespace edgetrain::strategy
