// See oort.hpp.
#include "sim/aggregate/oort.hpp"

#include <algorithm>
#include <cmath>

namespace edgetrain::sim {

OortScores::OortScores(size_t members, double alpha, std::optional<double> preferred_round_s)
    : alpha_(alpha),
      preferred_given_(preferred_round_s.has_value()),
      preferred_(preferred_round_s),
      last_picked_(members, 0),
      statistical_(members, 0.0),
      round_time_s_(members) {}

void OortScores::aggregated(size_t member, int64_t samples, double loss, double round_time_s) {
  // A non-finite loss stops the run (diverged); keep the utility finite meanwhile.
  statistical_[member] = std::isfinite(loss) ? static_cast<double>(samples) * loss : 0.0;
  round_time_s_[member] = round_time_s;
  this_round_times_.push_back(round_time_s);
}

void OortScores::round_closed() {
  if (!preferred_given_ && !this_round_times_.empty()) {
    std::vector<double>& t = this_round_times_;
    std::sort(t.begin(), t.end());
    const size_t mid = t.size() / 2;
    preferred_ = t.size() % 2 == 1 ? t[mid] : (t[mid - 1] + t[mid]) / 2;
  }
  this_round_times_.clear();
}

std::vector<double> OortScores::utilities(const std::vector<size_t>& candidates, int64_t round) const {
  double lo = 0, hi = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const double u = statistical_[candidates[i]];
    lo = i == 0 ? u : std::min(lo, u);
    hi = i == 0 ? u : std::max(hi, u);
  }
  const double range = hi - lo;
  const double log_round = std::log(static_cast<double>(round + 1));
  std::vector<double> out;
  out.reserve(candidates.size());
  for (size_t m : candidates) {
    const double normalised = range > 0 ? (statistical_[m] - lo) / range : 0.0;
    const double bonus = std::sqrt(0.1 * log_round / static_cast<double>(last_picked_[m]));
    double system = 1;
    if (preferred_ && round_time_s_[m] && *round_time_s_[m] > *preferred_) {
      system = std::pow(*preferred_ / *round_time_s_[m], alpha_);
    }
    out.push_back((normalised + bonus) * system);
  }
  return out;
}

}  // namespace edgetrain::sim
