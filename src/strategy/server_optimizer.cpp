// See server_optimizer.hpp.
#include "strategy/server_optimizer.hpp"

#include "learn/sgd.hpp"

namespace edgetrain::strategy {

namespace {

// FedAvg (training.momentum and weight_decay as the training's SGD) and FedAvgM (Hsu et al. 2019:
// v = beta v + update, model -= lr v): LibTorch's SGD rule, learn/sgd.hpp.
class SgdStep : public ServerOptimizer {
 public:
  SgdStep(double momentum, double weight_decay) : sgd_(momentum, weight_decay) {}
  void step(std::vector<float>& model, std::span<const float> update, double lr) override { sgd_.step(model, update, lr); }

 private:
  learn::Sgd sgd_;
};

}  // namespace

std::unique_ptr<ServerOptimizer> make_server_optimizer(const scenario::Scenario& scenario) {
  const auto& t = scenario.training;
  if (!scenario.strategy) return std::make_unique<SgdStep>(t.momentum, t.weight_decay);
  const scenario::StrategySpec& s = *scenario.strategy;
  if (s.fedopt()) return make_fedopt(s);
  if (s.kind == "feddyn") return make_feddyn(scenario.devices.size());
  if (s.kind == "fedavgm") return std::make_unique<SgdStep>(s.server_momentum, 0.0);
  return std::make_unique<SgdStep>(t.momentum, t.weight_decay);  // fedavg, fedprox, scaffold
}

}  // namespace edgetrain::strategy
