// A learning back-end: what computes the payloads the protocol moves. It makes the devices'
// learners and the aggregators' model stores: LibTorch (real training, torch_backend.hpp) or
// timing only (sizes and FLOPs, no tensors: timing_backend.hpp). Nothing here sees SimGrid.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend/learner.hpp"
#include "backend/model_store.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::backend {

// A link that some stores send their model's change over (ModelAdoption), compressed on its own:
// declared by the topology that has one. `key` names its compressor in errors and declared sizes;
// the encoder of store `index` is seeded util::derive_seed(seed, seed_name, index).
struct DeltaLink {
  scenario::CompressorSpec compressor;
  std::string key;
  std::string seed_name;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const ModelCost& cost() const = 0;
  // Real training: steps on real samples, and evaluation. False in timing-only mode: no
  // accuracy, and which samples a batch holds does not matter, only how many.
  virtual bool trains() const = 0;
  virtual DeviceLearner& device(size_t index) = 0;
  // The model store of an aggregator serving `members` (scenario device indices).
  virtual std::unique_ptr<ModelStore> make_store(const std::vector<size_t>& members) = 0;
  // Such a store that also adopts an upstream model and sends its change since (ModelAdoption),
  // encoded by store `index`'s encoder of the delta link (only with one).
  virtual std::unique_ptr<ModelStore> make_adopting_store(const std::vector<size_t>& members, size_t index) = 0;
  // The store upstream of `count` adopting stores, its members: accumulate decodes member s's
  // delta with the delta link's compressor and s's seed; apply_accumulated applies
  // x <- x - sum_s w_s d_s / sum_s w_s plainly (its lr is ignored: no momentum, weight decay or
  // step size, which the adopting stores already applied).
  virtual std::unique_ptr<ModelStore> make_delta_store(size_t count) = 0;
  // The simulation ended: steps still on the pool (devices killed mid-step) finish and are
  // dropped, so that nothing changes while the results are written.
  virtual void quiesce() {}
  // Sizes taken from a declared ratio rather than computed: key -> ratio (timing-only runs).
  virtual std::vector<std::pair<std::string, double>> declared_sizes() const { return {}; }
  // strategy.kind python: the rounds' stores aggregate through `strategy` (policy/policy.hpp), which may also
  // give the initial model. Before any store is made. Timing-only: nothing to aggregate.
  virtual void use_strategy(std::shared_ptr<policy::StrategyPolicy> /*strategy*/) {}
};

}  // namespace edgetrain::backend
