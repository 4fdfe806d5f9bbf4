// A client selection policy (training.selection.kind), as RoundSelection (selection.hpp) asks it each
// round: which of the candidates to pick, and what it learns from the rounds. One file each
// (selection_uniform.cpp, selection_oort.cpp) and one row of the kinds table (selection_policy.cpp);
// RoundSelection keeps what every policy shares: who is a candidate, how many a round picks, the
// round's seeded generator, and the Poisson draw that privacy.dp's sampling asks for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "policy/policy.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::sim {

class SelectionPolicy {
 public:
  virtual ~SelectionPolicy() = default;
  // Sets chosen[m] for `count` of the candidate member positions `pool` (every member, or the available
  // ones for a kind that looks at availability), drawing from `state`, the round's own generator.
  virtual void pick(std::vector<size_t>& pool, size_t count, int64_t round, uint64_t& state,
                    std::vector<bool>& chosen) = 0;
  // What came back of a round (an update delivered `round_time_s` after its model was sent, in time or
  // late; one aggregated), and that a round closed. Ignored by a policy that does not learn.
  virtual void delivered(size_t /*member*/, double /*round_time_s*/) {}
  virtual void aggregated(size_t /*member*/, int64_t /*samples*/, double /*loss*/, double /*round_time_s*/) {}
  virtual void round_closed() {}
};

struct SelectionKind {
  std::string_view name;   // training.selection.kind
  bool every = false;      // picks every member, every round (no draw)
  bool uses_availability;  // its candidates are the available members only
  std::unique_ptr<SelectionPolicy> (*make)(const scenario::SelectionSpec& spec, size_t members);
};

// The row of `name` (the schema has refused any other).
const SelectionKind& selection_kind(const std::string& name);

// Moves a uniform sample of `count` of `pool` to its front: a partial Fisher-Yates shuffle driven by
// SplitMix64 (the same bits on every platform). Shared by the policies that draw.
void sample_front(std::vector<size_t>& pool, size_t count, uint64_t& state);

// A policy written in Python (policy/policy.hpp's DevicePicker) as a selection policy: members are device
// indices (the flat topology's rounds, which Python policies need).
std::unique_ptr<SelectionPolicy> make_picked(std::shared_ptr<policy::DevicePicker> picker);

// The policies' factories, one per file.
std::unique_ptr<SelectionPolicy> make_uniform(const scenario::SelectionSpec& spec, size_t members);
std::unique_ptr<SelectionPolicy> make_oort(const scenario::SelectionSpec& spec, size_t members);

}  // namespace edgetrain::sim
