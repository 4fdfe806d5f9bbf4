// Oort's utility of a device (Lai et al., OSDI 2021), from what the round-based aggregator saw of
// it: the samples and loss of its last aggregated update (statistical utility), its last round
// time (model sent -> update delivered: the system factor) and the round it was last picked (the
// staleness bonus). As in Oort's reference code, the statistical utilities of the candidates are
// scaled to [0, 1] by their range before the bonus is added, so the bonus weighs the same on any
// dataset:
//   utility_i = ((U_i - min U) / (max U - min U) + sqrt(0.1 ln R / L_i)) x min(1, (T / t_i)^alpha)
// with U_i = samples_i x loss_i (0 before its first aggregated update), R the current round and
// L_i the round it was last picked (both counted from 1), t_i its last round time (no penalty
// before its first delivery) and T the preferred round duration (given, or the median of the times
// of the updates aggregated in the last round that aggregated any). No SimGrid here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace edgetrain::sim {

class OortScores {
 public:
  OortScores(size_t members, double alpha, std::optional<double> preferred_round_s);
  bool explored(size_t member) const { return last_picked_[member] > 0; }
  // `round` counted from 0, as RoundSelection's rounds.
  void picked(size_t member, int64_t round) { last_picked_[member] = round + 1; }
  // An update of `member` came back `round_time_s` after its model was sent (in time or late).
  void delivered(size_t member, double round_time_s) { round_time_s_[member] = round_time_s; }
  // Its update was aggregated: the statistical utility and this round's times (for T).
  void aggregated(size_t member, int64_t samples, double loss, double round_time_s);
  // The round closed: T becomes the median of its aggregated updates' times (when it had any).
  void round_closed();
  std::optional<double> preferred_round_s() const { return preferred_; }
  // The utility of each of `candidates` (member positions, all explored) in round `round`.
  std::vector<double> utilities(const std::vector<size_t>& candidates, int64_t round) const;

 private:
  double alpha_;
  bool preferred_given_;
  std::optional<double> preferred_;
  std::vector<int64_t> last_picked_;  // 1-based round, 0 = never
  std::vector<double> statistical_;   // samples x loss of the last aggregated update
  std::vector<std::optional<double>> round_time_s_;
  std::vector<double> this_round_times_;
};

}  // namespace edgetrain::sim
