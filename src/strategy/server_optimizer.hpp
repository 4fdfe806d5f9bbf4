// The server's optimiser: how a round's aggregated update moves the global model. Updates come in the
// back-ends' convention, a step to subtract (a gradient, or local SGD's pulled - local delta), so
// FedOpt's pseudo-gradient Delta (local - pulled) is its negation. One row per strategy kind
// (make_server_optimizer): FedAvg, FedProx and SCAFFOLD step plainly, FedAvgM with server momentum, FedAdam,
// FedYogi and FedAdagrad adaptively (fedopt.cpp), FedDyn with its dynamic regulariser's state (feddyn.cpp). Plain C++: no LibTorch, no SimGrid.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "scenario/scenario.hpp"

namespace edgetrain::strategy {

class ServerOptimizer {
 public:
  virtual ~ServerOptimizer() = default;
  // Moves `model` by the aggregated `update` (a step to subtract) with the round's step size `lr`
  // (the adaptive kinds use their own eta instead).
  virtual void step(std::vector<float>& model, std::span<const float> update, double lr) = 0;
  // The device updates the next step aggregates (FedDyn's server state moves by their sum).
  virtual void round_of(int64_t /*updates*/) {}
};

// The scenario's optimiser: the strategy's, or without one the training's SGD (training.momentum and
// weight_decay) exactly as before strategies existed.
std::unique_ptr<ServerOptimizer> make_server_optimizer(const scenario::Scenario& scenario);

// FedAdam, FedYogi, FedAdagrad (fedopt.cpp).
std::unique_ptr<ServerOptimizer> make_fedopt(const scenario::StrategySpec& spec);

// FedDyn's server (feddyn.cpp) for a fleet of `devices`.
std::unique_ptr<ServerOptimizer> make_feddyn(size_t devices);

}  // namespace edgetrain::strategy
