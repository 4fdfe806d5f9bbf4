// See selection.hpp.
#include "sim/aggregate/selection.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "scenario/population.hpp"
#include "util/seed.hpp"

namespace edgetrain::sim {
namespace {

// Moves a uniform sample of `count` of `pool` to its front: a partial Fisher-Yates shuffle driven by
// SplitMix64 (the same bits on every platform).
void sample_front(std::vector<size_t>& pool, size_t count, uint64_t& state) {
  for (size_t i = 0; i < count; ++i) {
    state = util::mix64(state);
    const size_t j = i + static_cast<size_t>(state % (pool.size() - i));
    std::swap(pool[i], pool[j]);
  }
}

}  // namespace

RoundSelection::RoundSelection(const scenario::SelectionSpec& spec, uint64_t seed, size_t members, bool poisson)
    : seed_(seed), members_(members), exploration_(spec.exploration) {
  kind_ = spec.kind == "random"      ? Kind::Random
          : spec.kind == "available" ? Kind::Available
          : spec.kind == "oort"      ? Kind::Oort
                                     : Kind::All;
  if (kind_ == Kind::Oort) oort_.emplace(members, spec.alpha, spec.preferred_round_s);
  if (kind_ == Kind::All) return;
  per_round_ = scenario::round_size(spec, members);
  if (per_round_) picks_ = scenario::most_picked(spec, members);
  poisson_ = poisson && per_round_;
}

std::vector<bool> RoundSelection::pick(int64_t round, const std::vector<bool>& available) {
  std::vector<bool> chosen(members_, kind_ == Kind::All);
  if (kind_ == Kind::All) return chosen;
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
  if (kind_ != Kind::Oort) {
    sample_front(pool, count, state);
    for (size_t i = 0; i < count; ++i) chosen[pool[i]] = true;
    return chosen;
  }
  // Oort: the exploration share to never-picked members, the rest to the highest utilities; when
  // either side runs short, the other takes the remainder.
  std::vector<size_t> fresh, known;
  for (size_t m : pool) (oort_->explored(m) ? known : fresh).push_back(m);
  const auto share = static_cast<size_t>(std::llround(exploration_ * static_cast<double>(count)));
  const size_t exploit = std::min(known.size(), count - std::min(fresh.size(), share));
  const size_t explore = std::min(fresh.size(), count - exploit);
  const std::vector<double> utility = oort_->utilities(known, round);
  std::vector<size_t> order(known.size());
  std::iota(order.begin(), order.end(), size_t{0});
  // Highest utility first; ties by member position (known is in position order).
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return utility[a] > utility[b]; });
  for (size_t i = 0; i < exploit; ++i) chosen[known[order[i]]] = true;
  sample_front(fresh, explore, state);
  for (size_t i = 0; i < explore; ++i) chosen[fresh[i]] = true;
  for (size_t m = 0; m < members_; ++m)
    if (chosen[m]) oort_->picked(m, round);
  return chosen;
}

void RoundSelection::delivered(size_t member, double round_time_s) {
  if (oort_) oort_->delivered(member, round_time_s);
}

void RoundSelection::aggregated(size_t member, int64_t samples, double loss, double round_time_s) {
  if (oort_) oort_->aggregated(member, samples, loss, round_time_s);
}

void RoundSelection::round_closed() {
  if (oort_) oort_->round_closed();
}

}  // namespace edgetrain::sim
