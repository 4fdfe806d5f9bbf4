// See selection.hpp.
#include "sim/selection.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "scenario/error.hpp"
#include "util/seed.hpp"

namespace edgetrain::sim {

RoundSelection::RoundSelection(const scenario::SelectionSpec& spec, uint64_t seed, size_t members)
    : all_(spec.kind != "random"), seed_(seed), members_(members), per_round_(members) {
  if (all_) return;
  if (spec.per_round > 0) {
    if (static_cast<size_t>(spec.per_round) > members) {
      throw scenario::ScenarioError("training.selection.per_round: " + std::to_string(spec.per_round) +
                                    " is more than the " + std::to_string(members) + " devices");
    }
    per_round_ = static_cast<size_t>(spec.per_round);
  } else {
    const auto k = static_cast<size_t>(std::llround(spec.fraction * static_cast<double>(members)));
    per_round_ = std::clamp<size_t>(k, 1, members);
  }
}

std::vector<bool> RoundSelection::pick(int64_t round) const {
  std::vector<bool> chosen(members_, all_);
  if (all_) return chosen;
  // A partial Fisher-Yates shuffle driven by SplitMix64 (the same bits on every platform).
  std::vector<size_t> order(members_);
  std::iota(order.begin(), order.end(), size_t{0});
  uint64_t state = util::derive_seed(seed_, "selection", static_cast<uint64_t>(round));
  for (size_t i = 0; i < per_round_; ++i) {
    state = util::mix64(state);
    const size_t j = i + static_cast<size_t>(state % (members_ - i));
    std::swap(order[i], order[j]);
    chosen[order[i]] = true;
  }
  return chosen;
}

}  // namespace edgetrain::sim
