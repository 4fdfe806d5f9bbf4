// The real-training back-end: LibTorch steps on real data (through learn::Workspace, one per
// worker of the pool), the real encodings of every update, and the server's SGD on the flat
// parameter vector. A device's learner owns its update's working memory (the gradient, the
// local model of local-sgd) only while the update is in progress, and its compressor state.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "backend/backend.hpp"
#include "backend/charged_model.hpp"
#include "backend/worker_pool.hpp"
#include "learn/dataset.hpp"
#include "learn/model.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::backend {

class TorchBackend : public Backend {
 public:
  // `model` and `data` outlive the back-end. `threads`: the pool's size (1: every step on the
  // simulation thread). `charged`: what the protocol charges (the trained model, or model.cost_as:
  // then its sizes too, charged_model.hpp). `deltas`: the delta link, if the topology has one.
  TorchBackend(const scenario::Scenario& scenario, const learn::Model& model, const learn::DatasetPair& data,
               size_t threads, const ChargedModel& charged, const std::optional<DeltaLink>& deltas);
  ~TorchBackend() override;

  const ModelCost& cost() const override { return cost_; }
  bool trains() const override { return true; }
  // Made on first use: a population's devices that never take part cost a null pointer each.
  DeviceLearner& device(size_t index) override;
  std::unique_ptr<ModelStore> make_store(const std::vector<size_t>& members) override;
  std::unique_ptr<ModelStore> make_adopting_store(const std::vector<size_t>& members, size_t index) override;
  std::unique_ptr<ModelStore> make_delta_store(size_t count) override;
  void quiesce() override;
  void use_strategy(std::shared_ptr<policy::StrategyPolicy> strategy) override;

  // Shared by the learners and stores of this back-end.
  struct Shared;

 private:
  std::unique_ptr<Shared> shared_;
  ModelCost cost_;
  std::vector<std::unique_ptr<DeviceLearner>> devices_;
};

}  // namespace edgetrain::backend
