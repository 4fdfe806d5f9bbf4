// FedAdam, FedYogi and FedAdagrad: Reddi et al., "Adaptive Federated Optimization" (ICLR 2021),
// Algorithm 2, with Flower's defaults. With Delta the round's mean pseudo-gradient (local - pulled):
//   m = beta1 m + (1 - beta1) Delta
//   v = v + Delta^2                                    (FedAdagrad)
//   v = v - (1 - beta2) Delta^2 sign(v - Delta^2)      (FedYogi)
//   v = beta2 v + (1 - beta2) Delta^2                  (FedAdam)
//   model = model + eta m / (sqrt(v) + tau)
// m and v start at 0, as in Flower (the paper allows v_{-1} >= tau^2). No bias correction, as in the paper.
#include <cmath>

#include "strategy/server_optimizer.hpp"

namespace edgetrain::strategy {

namespace {

enum class Second { Adagrad, Yogi, Adam };

class FedOpt : public ServerOptimizer {
 public:
  FedOpt(const scenario::StrategySpec& s, Second rule)
      : rule_(rule), eta_(s.server_lr), beta1_(s.beta1), beta2_(s.beta2), tau_(s.tau) {}

  void step(std::vector<float>& model, std::span<const float> update, double) override {
    if (m_.empty()) {
      m_.assign(model.size(), 0.0);
      v_.assign(model.size(), 0.0);
    }
    for (size_t k = 0; k < model.size(); ++k) {
      const double delta = -static_cast<double>(update[k]), d2 = delta * delta;
      m_[k] = beta1_ * m_[k] + (1 - beta1_) * delta;
      switch (rule_) {
        case Second::Adagrad: v_[k] += d2; break;
        case Second::Yogi: v_[k] -= (1 - beta2_) * d2 * (v_[k] > d2 ? 1.0 : v_[k] < d2 ? -1.0 : 0.0); break;
        case Second::Adam: v_[k] = beta2_ * v_[k] + (1 - beta2_) * d2; break;
      }
      model[k] = static_cast<float>(model[k] + eta_ * m_[k] / (std::sqrt(v_[k]) + tau_));
    }
  }

 private:
  Second rule_;
  double eta_, beta1_, beta2_, tau_;
  std::vector<double> m_, v_;  // in double: v of tiny deltas squared stays above float's range
};

}  // namespace

std::unique_ptr<ServerOptimizer> make_fedopt(const scenario::StrategySpec& spec) {
  const Second rule = spec.kind == "fedadagrad" ? Second::Adagrad : spec.kind == "fedyogi" ? Second::Yogi : Second::Adam;
  return std::make_unique<FedOpt>(spec, rule);
}

}  // namespace edgetrain::strategy
