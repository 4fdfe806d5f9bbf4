// The model whose costs a run charges: its parameter count, training FLOPs per sample and layer
// layout (the compressors' sizes depend on it). That is the trained model (mlp, cnn), or the
// catalogued one: model.name in timing-only runs, model.cost_as in real runs. From the scenario
// alone, without LibTorch.
#pragma once

#include <string>
#include <vector>

#include "backend/learner.hpp"
#include "compress/compressor.hpp"
#include "learn/dataset.hpp"
#include "scenario/scenario.hpp"
#include "strategy/split_plan.hpp"

namespace edgetrain::backend {

struct ChargedModel {
  ModelCost cost;
  std::vector<compress::Layer> layers;
  bool catalogued = false;  // from the model catalogue (learn/catalogue.hpp)
  // Split learning (strategy.kind splitfed): where the model is cut; `device_cost` is what a device's step
  // charges (its modules' FLOPs and compute layers), `cost` without a split.
  std::optional<strategy::SplitPlan> split;
  ModelCost device_cost;
  // Per layer, true for a tensor that does not travel: it stays on each device (personalisation,
  // strategy/personal_layers.hpp) or on the server (splitfed); empty when the whole model travels.
  std::vector<bool> stays;
};

// `shape`: the data set's sample shape (mlp and cnn are sized from it).
ChargedModel charged_model(const scenario::Scenario& scenario, const learn::DatasetShape& shape);

// With model.cost_as a real run trains the small model but charges the catalogued model's
// message sizes: the formula size on the catalogued layout where the compressor has one, else
// the trained model's real encoded size scaled by the ratio of the two dense sizes.
class ChargedSizes {
 public:
  ChargedSizes(const scenario::CompressorSpec& spec, int64_t trained_params, const ChargedModel& charged,
               const std::string& section);
  // Wire size charged for a payload that really weighs `real_bytes`; `dense`: sent uncompressed.
  int64_t charge(int64_t real_bytes, bool dense) const;

 private:
  std::optional<int64_t> formula_;
  int64_t trained_dense_, charged_dense_;
};

}  // namespace edgetrain::backend
