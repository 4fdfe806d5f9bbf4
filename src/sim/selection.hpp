// Client selection in synchronous rounds (training.selection): which members of an aggregator the
// model goes to in a round. `random` draws, each round, a uniform sample without replacement from
// the round's own seeded stream (seed, "selection", round), so a round's pick does not depend on
// what happened before it, nor on the thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "scenario/scenario.hpp"

namespace edgetrain::sim {

class RoundSelection {
 public:
  // Throws scenario::ScenarioError when per_round exceeds the members.
  RoundSelection(const scenario::SelectionSpec& spec, uint64_t seed, size_t members);
  // Per member position: taking part in round `round`.
  std::vector<bool> pick(int64_t round) const;
  size_t per_round() const { return per_round_; }

 private:
  bool all_;
  uint64_t seed_;
  size_t members_, per_round_;
};

}  // namespace edgetrain::sim
