// Uniform selection (kinds all, random and available): a seeded uniform sample of the candidates,
// without replacement; nothing learnt from the rounds.
#include "sim/aggregate/selection_policy.hpp"

namespace edgetrain::sim {
namespace {

class Uniform : public SelectionPolicy {
 public:
  void pick(std::vector<size_t>& pool, size_t count, int64_t, uint64_t& state, std::vector<bool>& chosen) override {
    sample_front(pool, count, state);
    for (size_t i = 0; i < count; ++i) chosen[pool[i]] = true;
  }
};

}  // namespace

std::unique_ptr<SelectionPolicy> make_uniform(const scenario::SelectionSpec&, size_t) {
  return std::make_unique<Uniform>();
}

}  // namespace edgetrain::sim
