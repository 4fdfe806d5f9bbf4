// See selection.hpp.
#include "sim/aggregate/selection.hpp"

#include <algorithm>
#include <string>

#include "scenario/population.hpp"
#include "util/seed.hpp"

namespace edgetrain::sim {

RoundSelection::RoundSelection(const scenario::SelectionSpec& spec, uint64_t seed, size_t members, bool poisson,
                               std::shared_ptr<SelectionPolicy> given)
    : kind_(&selection_kind(given ? "python" : spec.kind)),
      policy_(given ? std::move(given) : kind_->make(spec, members)),
      seed_(seed),
      members_(members) {
  if (kind_->every) return;
  per_round_ = scenario::round_size(spec, members);
  if (per_round_) picks_ = scenario::most_picked(spec, members);
  poisson_ = poisson && per_round_;
}

std::vector<bool> RoundSelection::pick(int64_t round, const std::vector<bool>& available) {
  std::vector<bool> chosen(members_, kind_->every);
  if (kind_->every) return chosen;
  std::vector<size_t> pool;
  for (size_t m = 0; m < members_; ++m)
    if (!uses_availability() || available[m]) pool.push_back(m);
  size_t count = pool.size();
  if (per_round_) count = std::min(pool.size(), picks_);
  uint64_t state = util::derive_seed(seed_, "selection", static_cast<uint64_t>(round));
  if (poisson_) {
    // Each member in with probability picks / members: one 53-bit uniform per member, in member order.
    const double q = static_cast<double>(picks_) / static_cast<double>(members_);
    for (size_t m : pool) {
      state = util::mix64(state);
      chosen[m] = static_cast<double>(state >> 11) * 0x1.0p-53 < q;
    }
    return chosen;
  }
  policy_->pick(pool, count, round, state, chosen);
  return chosen;
}

}  // namespace edgetrain::sim
