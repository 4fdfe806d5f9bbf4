// What a round's aggregation costs the aggregator's host beyond the weighted mean and an SGD step
// (SyncRounds::apply_flops): a robust rule's comparisons and sorts, an adaptive optimiser's moments. The
// timing-only back-end charges it as the real one does. Plain C++: no LibTorch, no SimGrid.
#pragma once

#include <cstdint>

#include "scenario/scenario.hpp"

namespace edgetrain::strategy {

class AggregationCost {
 public:
  explicit AggregationCost(const scenario::Scenario& scenario);
  // The extra FLOPs of aggregating `updates` updates of `params` values.
  double extra_flops(int64_t params, int64_t updates) const;

 private:
  const scenario::Scenario& scenario_;
  double attacker_share_ = 0;
};

}  // namespace edgetrain::strategy
