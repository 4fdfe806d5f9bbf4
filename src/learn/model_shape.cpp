// See model_shape.hpp. Mirrors the layer plan of model.cpp: mlp = linear + ReLU per hidden
// width, then a linear to the classes; cnn = 5x5 convolution, 2x2 max-pool, ReLU per entry of
// conv_channels, then the mlp part on the flattened maps.
#include "learn/model_shape.hpp"

#include <string>
#include <vector>

namespace edgetrain::learn {

ModelShape model_shape(const ModelConfig& config) {
  ModelShape s;
  const double input = static_cast<double>(config.channels) * config.height * config.width;
  s.activation_floats_per_sample = input;
  std::vector<int64_t> hidden = config.hidden;
  if (hidden.empty()) hidden = {config.name == "cnn" ? 50 : 128};
  double in = input;
  if (config.name == "cnn") {
    constexpr int64_t kernel = 5;
    double c = static_cast<double>(config.channels);
    int64_t h = config.height, w = config.width;
    for (int64_t out : config.conv_channels) {
      const int64_t oh = h - kernel + 1, ow = w - kernel + 1;
      if (oh < 2 || ow < 2) {
        throw ModelError("model.conv_channels: a " + std::to_string(config.height) + "x" +
                         std::to_string(config.width) + " input is too small for " +
                         std::to_string(config.conv_channels.size()) + " 5x5 convolutions with 2x2 pooling");
      }
      s.params += c * kernel * kernel * out + out;
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
  for (int64_t width : hidden) {
    s.params += in * width + width;
    s.activation_floats_per_sample += 2.0 * width;  // linear, ReLU
    in = static_cast<double>(width);
  }
  s.params += in * config.classes + config.classes;
  s.activation_floats_per_sample += 2.0 * config.classes;  // logits, log-softmax
  return s;
}

}  // namespace edgetrain::learn
