// Personalisation (strategy.kind fedper, fedrep, fedbn; docs/explanation/strategies.md): which of the
// model's parameter tensors stay on each device and never travel. The tensors are grouped into modules
// (those whose names share all but the last part: fc2.weight and fc2.bias are module fc2), which split
// learning's cut counts as well. Plain C++: no LibTorch, no SimGrid.
#pragma once

#include <cstddef>
#include <vector>

#include "learn/layer_info.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::strategy {

// Per tensor of `layers`, its module's number (0, 1, ... in order of first appearance).
std::vector<size_t> modules_of(const std::vector<learn::LayerInfo>& layers);

// Per tensor of `layers`: true when it stays on each device (fedper, fedrep: the last strategy.head_layers
// modules; fedbn: the normalisation modules' tensors); empty when the whole model travels (other kinds, and
// ditto, whose personal model is a second whole model). A ScenarioError in one line when the split would
// keep everything or nothing (a head as large as the model, a model without normalisation layers).
std::vector<bool> kept_on_device(const scenario::Scenario& scenario, const std::vector<learn::LayerInfo>& layers);

}  // namespace edgetrain::strategy
