// What one layer of a network costs to run: its kind, the FLOPs and the bytes of activations one
// sample's forward pass moves through it, and the bytes of its weights. The model catalogue
// (catalogue.hpp) and the built-in models (model_shape.hpp) describe their layers this way; the
// compute model (compute/roofline.hpp), which stands on learn, turns them into seconds. Header only.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

namespace edgetrain::learn {

// The layer kinds the compute model tells apart: each runs at its own share of a device's ceilings.
// Residual adds, softmax and GELU count as activations (element-wise); an embedding lookup as dense
// without FLOPs.
enum class LayerKind { dense, conv, depthwise, norm, activation, pool };
inline constexpr std::size_t kLayerKinds = 6;
inline constexpr std::array<std::string_view, kLayerKinds> kLayerKindNames{"dense", "conv",       "depthwise",
                                                                          "norm",  "activation", "pool"};

struct LayerCost {
  LayerKind kind = LayerKind::dense;
  // One sample's forward pass: FLOPs (2 per multiply-accumulate plus bias adds, as learn::Model
  // counts them; 0 for element-wise kinds) and activation bytes read and written (fp32 input and
  // output elements x 4).
  double flops = 0;
  double activation_bytes = 0;
  double weight_bytes = 0;  // fp32 weights and biases: read once per step whatever the batch
  // One sample's output (fp32 elements x 4): what split learning sends when the model is cut after this layer.
  double output_bytes = 0;
};

using LayerCosts = std::vector<LayerCost>;

// Forward FLOPs of one sample over all layers.
inline double forward_flops(const LayerCosts& layers) {
  double f = 0;
  for (const LayerCost& l : layers) f += l.flops;
  return f;
}

}  // namespace edgetrain::learn
