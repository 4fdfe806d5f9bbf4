// See model_shape.hpp. Mirrors the layer plan of learn/torch/network.cpp: mlp = linear + ReLU per hidden
// width, then a linear to the classes; cnn = KxK convolution, 2x2 max-pool, ReLU per entry of
// conv_channels, then the mlp part on the flattened maps.
#include "learn/model_shape.hpp"

#include <string>
#include <vector>

namespace edgetrain::learn {

namespace {

// Only for sizes a real model could have: the estimate also sizes absurd configurations, whose
// layer sizes would overflow int64 (they are refused before any layer is used).
void add_layer(ModelShape& s, const std::string& name, std::vector<int64_t> weight_shape, int64_t out) {
  double size = 1;
  for (int64_t d : weight_shape) size *= static_cast<double>(d);
  if (!(s.params < 1e15) || size > 1e15) return;
  int64_t numel = 1;
  for (int64_t d : weight_shape) numel *= d;
  const int64_t offset = s.layers.empty() ? 0 : s.layers.back().offset + s.layers.back().numel;
  s.layers.push_back({name + ".weight", std::move(weight_shape), offset, numel});
  s.layers.push_back({name + ".bias", {out}, offset + numel, out});
}

}  // namespace

int64_t conv_padding(const ModelConfig& config) { return config.conv_same ? config.conv_kernel / 2 : 0; }

int64_t conv_output_side(const ModelConfig& config, int64_t side) {
  const int64_t out = side + 2 * conv_padding(config) - config.conv_kernel + 1;
  if (out < 2) {
    const std::string k = std::to_string(config.conv_kernel);
    throw ModelError("model.conv_channels: a " + std::to_string(config.height) + "x" + std::to_string(config.width) +
                     " input is too small for " + std::to_string(config.conv_channels.size()) + " " + k + "x" + k +
                     " convolutions with 2x2 pooling");
  }
  return out;
}

ModelShape model_shape(const ModelConfig& config) {
  if (config.name == "torchscript") return script_shape(config);
  ModelShape s;
  const double input = static_cast<double>(config.channels) * config.height * config.width;
  s.activation_floats_per_sample = input;
  std::vector<int64_t> hidden = config.hidden;
  if (hidden.empty()) hidden = {config.name == "cnn" ? 50 : 128};
  double in = input;
  if (config.name == "cnn") {
    const int64_t kernel = config.conv_kernel;
    double c = static_cast<double>(config.channels);
    int64_t h = config.height, w = config.width;
    for (int64_t out : config.conv_channels) {
      const int64_t oh = conv_output_side(config, h), ow = conv_output_side(config, w);
      s.params += c * kernel * kernel * out + out;
      const double conv_flops = (2.0 * c * kernel * kernel + 1) * out * oh * ow;
      s.forward_flops_per_sample += conv_flops;
      const double conv_out = static_cast<double>(out) * oh * ow, pool_out = static_cast<double>(out) * (oh / 2) * (ow / 2);
      s.compute_layers.push_back(
          {LayerKind::conv, conv_flops, 4 * (c * h * w + conv_out), 4 * (c * kernel * kernel * out + out), 4 * conv_out});
      s.compute_layers.push_back({LayerKind::pool, 0, 4 * (conv_out + pool_out), 0, 4 * pool_out});
      s.compute_layers.push_back({LayerKind::activation, 0, 8 * pool_out, 0, 4 * pool_out});
      add_layer(s, "conv" + std::to_string(s.layers.size() / 2 + 1), {out, static_cast<int64_t>(c), kernel, kernel},
                out);
      h = oh / 2;
      w = ow / 2;
      const double pooled = static_cast<double>(out) * h * w;
      s.activation_floats_per_sample += static_cast<double>(out) * oh * ow + 2 * pooled;  // conv, pool, ReLU
      c = static_cast<double>(out);
    }
    in = c * h * w;
  } else if (config.name != "mlp") {
    throw ModelError("model.name: unknown model \"" + config.name + "\"");
  }
  const size_t convs = s.layers.size() / 2;
  auto linear = [&](int64_t out) {
    s.params += in * out + out;
    s.forward_flops_per_sample += 2.0 * in * out + out;
    s.compute_layers.push_back({LayerKind::dense, 2.0 * in * out + out, 4 * (in + out), 4 * (in * out + out), 4.0 * out});
    add_layer(s, "fc" + std::to_string(s.layers.size() / 2 - convs + 1), {out, static_cast<int64_t>(in)}, out);
  };
  for (int64_t width : hidden) {
    linear(width);
    s.compute_layers.push_back({LayerKind::activation, 0, 8.0 * width, 0, 4.0 * width});
    s.activation_floats_per_sample += 2.0 * width;  // linear, ReLU
    in = static_cast<double>(width);
  }
  linear(config.classes);
  s.activation_floats_per_sample += 2.0 * config.classes;  // logits, log-softmax
  return s;
}

}  // namespace edgetrain::learn
