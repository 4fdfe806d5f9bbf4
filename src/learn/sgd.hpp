// SGD with momentum and weight decay on the flat parameter vector, with LibTorch's update
// rule (buf = momentum*buf + (g + wd*w), first step buf = g + wd*w; w -= lr*buf), in plain
// C++ so the server needs no LibTorch.
#pragma once

#include <span>
#include <vector>

namespace edgetrain::learn {

class Sgd {
 public:
  Sgd(double momentum, double weight_decay) : momentum_(momentum), weight_decay_(weight_decay) {}
  void step(std::vector<float>& params, std::span<const float> gradient, double lr);

 private:
  double momentum_, weight_decay_;
  std::vector<float> buffer_;  // momentum buffer, empty until the first step
};

}  // namespace edgetrain::learn
