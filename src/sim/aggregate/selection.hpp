// Client selection in synchronous rounds (training.selection): which members of an aggregator the
// model goes to in a round. `random` draws a uniform sample without replacement of every member,
// `available` of the members the aggregator reports available (on, not busy, a batch at hand), and
// `oort` picks among the available ones by Oort's utility (oort.hpp), an `exploration` share of
// the picks going to never-picked members. Each kind is a policy of its own file, one row of the
// kinds table (selection_policy.hpp); this class does what they share. Draws come from the round's own seeded stream (seed,
// "selection", round), so a round's draw does not depend on the thread count. Over-selection picks
// ceil(K (1 + over_selection)) members where K is the updates a round aggregates. Under privacy.dp with
// sampling poisson, `random` draws each member independently with probability picks/members (the draw
// the Poisson accountant assumes), and a round then aggregates whatever number it drew (no cap).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "scenario/scenario.hpp"
#include "sim/aggregate/selection_policy.hpp"

namespace edgetrain::sim {

class RoundSelection {
 public:
  // Throws scenario::ScenarioError when per_round exceeds the members.
  // `poisson`: scenario::poisson_draw (kind random under privacy.dp sampling poisson).
  // `given`: a policy made elsewhere (a Python selection, or a Python strategy's configure_fit), in place of the
  // kind's; it picks among the available members.
  RoundSelection(const scenario::SelectionSpec& spec, uint64_t seed, size_t members, bool poisson = false,
                 std::shared_ptr<SelectionPolicy> given = nullptr);
  // Whether pick() looks at who is available (kinds available and oort).
  bool uses_availability() const { return kind_->uses_availability; }
  // Per member position: selected in round `round` (counted from 0). `available` (per member) is
  // read only when uses_availability().
  std::vector<bool> pick(int64_t round, const std::vector<bool>& available);
  // The updates a round aggregates at most when `selected` members were picked (K, or all of them).
  size_t aggregates(size_t selected) const {
    return per_round_ && !poisson_only() ? std::min(*per_round_, selected) : selected;
  }
  // The policy's feedback (Oort learns from it): an update came back (in time or late) or was
  // aggregated, `round_time_s` after its model was sent; a round closed.
  void delivered(size_t member, double round_time_s) { policy_->delivered(member, round_time_s); }
  void aggregated(size_t member, int64_t samples, double loss, double round_time_s) {
    policy_->aggregated(member, samples, loss, round_time_s);
  }
  void round_closed() { policy_->round_closed(); }

 private:
  // A Poisson draw without over-selection aggregates every update it drew.
  bool poisson_only() const { return poisson_ && picks_ == *per_round_; }
  const SelectionKind* kind_;
  std::shared_ptr<SelectionPolicy> policy_;
  bool poisson_ = false;  // random: each member with probability picks_ / members_
  uint64_t seed_;
  size_t members_;
  std::optional<size_t> per_round_;  // K; empty: every member (all) or every available one
  size_t picks_ = 0;                 // with K: ceil(K (1 + over_selection)), at most the members
};

}  // namespace edgetrain::sim
