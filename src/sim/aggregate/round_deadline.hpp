// When a synchronous round stops waiting (training.deadline): a fixed training.round_timeout_s, or a
// deadline predicted from the round times seen so far (FedBalancer's rule, docs/explanation/sync.md):
// among the picked devices' last round times t_i, the D that maximises the updates expected by D per
// second of round, |{i : t_i <= D}| / D. Before any device has a round time, the fixed timeout (or none).
// Plain arithmetic on member positions: no SimGrid.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "policy/policy.hpp"

namespace edgetrain::sim {

class RoundDeadline {
 public:
  // `kind`: fixed | fedbalancer; `timeout`: training.round_timeout_s; `members`: the aggregator's.
  // `python`: kind python's policy (members are device indices: the flat topology's rounds).
  RoundDeadline(std::string kind, std::optional<double> timeout, size_t members,
                std::shared_ptr<policy::DeadlinePolicy> python = nullptr);
  // The round's timeout, from its start, for the picked members (`picked[m]`) of round `round`.
  std::optional<double> timeout(int64_t round, const std::vector<bool>& picked) const;
  // A member's update came back `round_time_s` after its model was sent (in time or late).
  void observed(size_t member, double round_time_s) {
    last_[member] = round_time_s;
    if (python_) python_->observed(member, round_time_s);
  }
  bool adaptive() const { return kind_ != "fixed"; }

 private:
  std::string kind_;
  std::optional<double> timeout_;
  std::vector<double> last_;  // per member: its last round time; -1 before its first
  std::shared_ptr<policy::DeadlinePolicy> python_;
};

}  // namespace edgetrain::sim
