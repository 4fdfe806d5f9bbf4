// FedDyn's server: Acar et al., "Federated Learning Based on Dynamic Regularization" (ICLR 2021), Algorithm 1.
// With theta_i the round's trained models and m the fleet's devices:
//   h = h - alpha (1/m) sum_i (theta_i - theta)
//   theta = mean_i theta_i - h / alpha
// In the back-ends' convention (Delta_i = theta - theta_i, a step to subtract, and their mean Delta):
//   h / alpha grows by (n / m) Delta for a round of n updates, and theta = theta - lr Delta - h / alpha,
// so the server's state is alpha-free (the devices' own term carries alpha: torch_backend.cpp). The mean is the
// round's weighted mean, as every strategy's; with equal weights (local SGD's equal samples) it is the paper's.
#include <cstdint>

#include "strategy/server_optimizer.hpp"

namespace edgetrain::strategy {

namespace {

class FedDyn : public ServerOptimizer {
 public:
  explicit FedDyn(size_t devices) : devices_(static_cast<double>(devices)) {}

  void round_of(int64_t updates) override { updates_ = updates; }

  void step(std::vector<float>& model, std::span<const float> update, double lr) override {
    if (drift_.empty()) drift_.assign(model.size(), 0.0);
    const double share = static_cast<double>(updates_) / devices_;
    for (size_t k = 0; k < model.size(); ++k) {
      drift_[k] += share * static_cast<double>(update[k]);
      model[k] = static_cast<float>(static_cast<double>(model[k]) - lr * static_cast<double>(update[k]) - drift_[k]);
    }
  }

 private:
  double devices_;
  int64_t updates_ = 0;
  std::vector<double> drift_;  // h / alpha
};

}  // namespace

std::unique_ptr<ServerOptimizer> make_feddyn(size_t devices) { return std::make_unique<FedDyn>(devices); }

}  // namespace edgetrain::strategy
