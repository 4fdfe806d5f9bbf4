// See sgd.hpp for the rule.
#include "learn/sgd.hpp"

#include <stdexcept>

namespace edgetrain::learn {

void Sgd::step(std::vector<float>& params, std::span<const float> gradient, double lr) {
  if (gradient.size() != params.size())
    throw std::invalid_argument("Sgd::step: gradient and parameters differ in size");
  const bool first = buffer_.empty();
  if (momentum_ != 0 && first) buffer_.resize(params.size());
  const auto mu = static_cast<float>(momentum_), wd = static_cast<float>(weight_decay_), step = static_cast<float>(lr);
  for (size_t i = 0; i < params.size(); ++i) {
    float d = gradient[i] + wd * params[i];
    if (momentum_ != 0) {
      buffer_[i] = first ? d : mu * buffer_[i] + d;
      d = buffer_[i];
    }
    params[i] -= step * d;
  }
}

}  // namespace edgetrain::learn
