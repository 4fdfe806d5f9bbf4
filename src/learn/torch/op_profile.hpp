// What a module's forward pass does, operation by operation, measured by running it: each
// top-level ATen operation it calls (a convolution, not the kernels inside it), with the shapes
// of its tensor inputs and outputs. cost_ops turns those into the layer costs of the compute
// model (layer_cost.hpp) with learn::Model's FLOP convention. LibTorch inside; the header is
// LibTorch-free.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "learn/layer_cost.hpp"

namespace edgetrain::learn {

struct OpCall {
  std::string name;                          // "aten::conv2d"
  std::vector<std::vector<int64_t>> inputs;  // tensor inputs' shapes, in argument order (absent ones skipped)
  std::vector<int64_t> ints;                 // integer arguments, lists flattened (a convolution's groups last)
  std::vector<std::vector<int64_t>> outputs;
};

// Runs `forward` on this thread and returns the top-level operations it called, in order.
std::vector<OpCall> record_ops(const std::function<void()>& forward);

struct OpCosts {
  LayerCosts layers;                        // per sample, in forward order
  double activation_floats_per_sample = 0;  // every costed operation's output
};

// The costs of `calls`, a forward pass over `batch` samples, per sample. Matrix products and
// convolutions count 2 FLOPs per multiply-accumulate plus bias adds; normalisation, pooling and
// element-wise operations count bytes only; shape operations (views, sizes) count nothing.
OpCosts cost_ops(const std::vector<OpCall>& calls, int64_t batch);

}  // namespace edgetrain::learn
