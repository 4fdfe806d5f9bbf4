// Oort's guided selection (kind oort; Lai et al., OSDI 2021; oort.hpp computes the utilities): an
// `exploration` share of the picks goes to never-picked members, drawn uniformly, the rest to the
// highest utilities; when either side runs short, the other takes the remainder.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/aggregate/oort.hpp"
#include "sim/aggregate/selection_policy.hpp"

namespace edgetrain::sim {
namespace {

class Oort : public SelectionPolicy {
 public:
  Oort(const scenario::SelectionSpec& spec, size_t members)
      : exploration_(spec.exploration), scores_(members, spec.alpha, spec.preferred_round_s) {}

  void pick(std::vector<size_t>& pool, size_t count, int64_t round, uint64_t& state,
            std::vector<bool>& chosen) override {
    std::vector<size_t> fresh, known;
    for (size_t m : pool) (scores_.explored(m) ? known : fresh).push_back(m);
    const auto share = static_cast<size_t>(std::llround(exploration_ * static_cast<double>(count)));
    const size_t exploit = std::min(known.size(), count - std::min(fresh.size(), share));
    const size_t explore = std::min(fresh.size(), count - exploit);
    const std::vector<double> utility = scores_.utilities(known, round);
    std::vector<size_t> order(known.size());
    std::iota(order.begin(), order.end(), size_t{0});
    // Highest utility first; ties by member position (known is in position order).
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return utility[a] > utility[b]; });
    for (size_t i = 0; i < exploit; ++i) chosen[known[order[i]]] = true;
    sample_front(fresh, explore, state);
    for (size_t i = 0; i < explore; ++i) chosen[fresh[i]] = true;
    for (size_t m = 0; m < chosen.size(); ++m)
      if (chosen[m]) scores_.picked(m, round);
  }
  void delivered(size_t member, double round_time_s) override { scores_.delivered(member, round_time_s); }
  void aggregated(size_t member, int64_t samples, double loss, double round_time_s) override {
    scores_.aggregated(member, samples, loss, round_time_s);
  }
  void round_closed() override { scores_.round_closed(); }

 private:
  double exploration_;
  OortScores scores_;
};

}  // namespace

std::unique_ptr<SelectionPolicy> make_oort(const scenario::SelectionSpec& spec, size_t members) {
  return std::make_unique<Oort>(spec, members);
}

}  // namespace edgetrain::sim
