// See injection.hpp.
#include "sim/aggregate/injection.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "util/seed.hpp"

namespace edgetrain::sim {

void Injection::plan_round(int64_t round, const std::vector<size_t>& members,
                           std::vector<std::unique_ptr<ModelMessage>>& models) {
  const auto& spec = state_.scenario.training.injection;
  const size_t n = models.size();
  if (!spec || n < 2) return;
  // Hand last round's shared samples to those who did not share then, in device order.
  std::vector<size_t> receivers;
  for (size_t i = 0; i < n; ++i) {
    if (previous_sharers_.empty() || !previous_sharers_[i]) receivers.push_back(i);
  }
  for (size_t k = 0; k < pool_.size() && !receivers.empty(); ++k) {
    ModelMessage& m = *models[receivers[k % receivers.size()]];
    m.injected.push_back(pool_[k].index);
    m.injected_bytes += pool_[k].bytes;
    state_.bytes_injected += pool_[k].bytes;
  }
  pool_.clear();
  // This round's sharers: a seeded random alpha fraction (at least one, never all).
  const auto count =
      std::clamp<size_t>(static_cast<size_t>(std::lround(spec->alpha * static_cast<double>(n))), 1, n - 1);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(util::derive_seed(state_.scenario.seed, "injection", static_cast<uint64_t>(round)));
  std::shuffle(order.begin(), order.end(), rng);
  previous_sharers_.assign(n, false);
  for (size_t k = 0; k < count; ++k) {
    const size_t i = order[k];
    previous_sharers_[i] = true;
    models[i]->share_count = std::lround(spec->beta * static_cast<double>(state_.devices[members[i]].batch_size));
  }
}

void Injection::collect(const UpdateMessage& update) {
  for (int64_t index : update.shared) arrived_[update.device].push_back({index, update.shared_sample_bytes});
}

void Injection::close_round() {
  for (const auto& [device, shared] : arrived_) {
    for (const Shared& sample : shared) {
      pool_.push_back(sample);
      state_.bytes_injected += sample.bytes;
      state_.samples_injected += 1;
    }
  }
  arrived_.clear();
}

}  // namespace edgetrain::sim
