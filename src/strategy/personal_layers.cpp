// See personal_layers.hpp.
#include "strategy/personal_layers.hpp"

#include <algorithm>
#include <string>

#include "scenario/error.hpp"

namespace edgetrain::strategy {

namespace {

std::string module_name(const std::string& tensor) {
  const size_t dot = tensor.rfind('.');
  return dot == std::string::npos ? tensor : tensor.substr(0, dot);
}

}  // namespace

std::vector<size_t> modules_of(const std::vector<learn::LayerInfo>& layers) {
  std::vector<size_t> out;
  std::vector<std::string> seen;
  for (const auto& l : layers) {
    const std::string name = module_name(l.name);
    const auto at = std::find(seen.begin(), seen.end(), name);
    out.push_back(static_cast<size_t>(at - seen.begin()));
    if (at == seen.end()) seen.push_back(name);
  }
  return out;
}

std::vector<bool> kept_on_device(const scenario::Scenario& scenario, const std::vector<learn::LayerInfo>& layers) {
  const auto& strategy = scenario.strategy;
  if (!strategy || !strategy->personalised() || strategy->kind == "ditto") return {};
  std::vector<bool> kept(layers.size(), false);
  if (strategy->kind == "fedbn") {
    for (size_t i = 0; i < layers.size(); ++i) kept[i] = layers[i].norm;
    if (std::none_of(kept.begin(), kept.end(), [](bool k) { return k; }))
      throw scenario::ScenarioError("strategy.kind: fedbn needs a model with normalisation layers (BatchNorm, "
                                    "GroupNorm, LayerNorm: a TorchScript model's); this model has none");
    return kept;
  }
  const std::vector<size_t> module = modules_of(layers);
  const size_t modules = module.empty() ? 0 : *std::max_element(module.begin(), module.end()) + 1;
  const auto head = static_cast<size_t>(strategy->head_layers);
  if (head >= modules)
    throw scenario::ScenarioError("strategy.head_layers: " + std::to_string(head) + " of the model's " +
                                  std::to_string(modules) + " modules would leave none to share");
  for (size_t i = 0; i < layers.size(); ++i) kept[i] = module[i] >= modules - head;
  return kept;
}

}  // namespace edgetrain::strategy
