// The compute model's names for a layer's cost (learn/layer_cost.hpp, where the models that have
// layers describe them): compute stands on learn, never the other way.
#pragma once

#include "learn/layer_cost.hpp"

namespace edgetrain::compute {

using Kind = learn::LayerKind;
using Layer = learn::LayerCost;
using Layers = learn::LayerCosts;
using learn::forward_flops;
inline constexpr std::size_t kKinds = learn::kLayerKinds;
inline constexpr auto& kKindNames = learn::kLayerKindNames;

}  // namespace edgetrain::compute
