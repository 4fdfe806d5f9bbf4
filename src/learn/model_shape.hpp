// A model's size, known from its configuration alone (no LibTorch): parameters and the
// activations one sample produces. The memory estimate needs these before any model is built;
// tests/learn/model_shape_test.cpp checks them against the LibTorch model.
#pragma once

#include <cstdint>
#include <vector>

#include "learn/layer_cost.hpp"
#include "learn/model.hpp"

namespace edgetrain::learn {

struct ModelShape {
  double params = 0;  // as double: an absurd configuration must not overflow before it is refused
  // Values one sample's forward pass produces: the input, every layer's output, activation and
  // pooling outputs (what the backward pass keeps, and about as much again for its gradients).
  double activation_floats_per_sample = 0;
  // The layer layout and forward FLOPs of one sample, as Model reports them (timing-only runs
  // charge these without building a network).
  std::vector<LayerInfo> layers;
  double forward_flops_per_sample = 0;
  LayerCosts compute_layers;  // for the compute model: each linear, convolution, pool and ReLU
};

// Throws ModelError for an input too small for the convolutions, as Model does. A TorchScript
// module's shape is measured (script_shape).
ModelShape model_shape(const ModelConfig& config);

// A TorchScript module's shape, measured once per file and input in a process (torchscript.hpp
// says what is checked: ModelError otherwise).
ModelShape script_shape(const ModelConfig& config);

// The cnn's convolutions: the padding each side, and the side of a convolution's output for an
// input side (throws ModelError when that output is too small to pool 2x2).
int64_t conv_padding(const ModelConfig& config);
int64_t conv_output_side(const ModelConfig& config, int64_t side);

}  // namespace edgetrain::learn
