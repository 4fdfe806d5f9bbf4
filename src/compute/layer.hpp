// What the compute model charges for one layer of a network: its kind, the FLOPs and the bytes of
// activations one sample's forward pass moves through it, and the bytes of its weights. The model
// catalogue (learn/catalogue.hpp) and the built-in models (learn/model_shape.hpp) describe their
// layers this way; the roofline (compute/roofline.hpp) turns them into seconds. Header only, no
// dependencies: the catalogue includes it without linking the compute library.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <vector>

namespace edgetrain::compute {

// The layer kinds the compute model tells apart: each runs at its own share of a device's ceilings.
// Residual adds, softmax and GELU count as activations (element-wise); an embedding lookup as dense
// without FLOPs.
enum class Kind { dense, conv, depthwise, norm, activation, pool };
inline constexpr std::size_t kKinds = 6;
inline constexpr std::array<std::string_view, kKinds> kKindNames{"dense",      "conv",       "depthwise",
                                                                  "norm",       "activation", "pool"};

struct Layer {
  Kind kind = Kind::dense;
  // One sample's forward pass: FLOPs (2 per multiply-accumulate plus bias adds, as learn::Model
  // counts them; 0 for element-wise kinds) and activation bytes read and written (fp32 input and
  // output elements x 4).
  double flops = 0;
  double activation_bytes = 0;
  double weight_bytes = 0;  // fp32 weights and biases: read once per step whatever the batch
};

using Layers = std::vector<Layer>;

// Forward FLOPs of one sample over all layers.
inline double forward_flops(const Layers& layers) {
  double f = 0;
  for (const Layer& l : layers) f += l.flops;
  return f;
}

}  // namespace edgetrain::compute
