// See sgd.hpp for the rule.
#include "learn/sgd.hpp"

#include <stdexcept>

namespace edgetrain::learn {

void Sgd::step(std::vector<float>& params, std::span<const float> gradient, double lr) {
  if (gradient.size() != params.size())
    throw std::invalid_argument("Sgd::step: gradient and parameters differ in size");
  const auto mu = static_cast<float>(momentum_), wd = static_cast<float>(weight_decay_), step = static_cast<float>(lr);
  float* w = params.data();
  const float* g = gradient.data();
  const size_t n = params.size();
  // One loop per case (no test per coordinate), each the same arithmetic as LibTorch's rule.
  if (momentum_ == 0) {
    for (size_t i = 0; i < n; ++i) w[i] -= step * (g[i] + wd * w[i]);
  } else if (buffer_.empty()) {
    buffer_.resize(n);
    for (size_t i = 0; i < n; ++i) w[i] -= step * (buffer_[i] = g[i] + wd * w[i]);
  } else {
    float* buf = buffer_.data();
    for (size_t i = 0; i < n; ++i) w[i] -= step * (buf[i] = mu * buf[i] + (g[i] + wd * w[i]));
  }
}

}  // namespace edgetrain::learn
