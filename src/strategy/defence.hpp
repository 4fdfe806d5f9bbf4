// Robust aggregation rules (`defence`): a round's decoded updates in, one aggregated update out, in
// place of the weighted mean. One row per kind (defences.cpp); the rules live in
// coordinate_rules.cpp (median, trimmed mean), krum.cpp (Krum, MultiKrum, Bulyan) and norm_bound.cpp.
// Plain C++: no LibTorch, no SimGrid.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

namespace edgetrain::strategy {

// One round's updates, each with its weight (samples, or 1).
struct RoundUpdates {
  std::span<const std::vector<float>> updates;
  std::span<const double> weights;
  int64_t byzantine = 0;  // f: the attackers the rule assumes among them
};

using Rule = void (*)(const scenario::DefenceSpec& spec, const RoundUpdates& round, std::vector<float>& out);
// FLOPs of the rule on n updates of d values (what the aggregator's host is charged).
using RuleFlops = double (*)(const scenario::DefenceSpec& spec, double n, double d, double f);

struct DefenceKind {
  const char* name;
  Rule aggregate;
  RuleFlops flops;
};

// The row of `spec.kind` (a logic_error for a kind the scenario would not have let through).
const DefenceKind& defence_kind(const std::string& kind);

// The rules, each writing `out` (sized here) from round.updates (at least one).
void coordinate_median(const scenario::DefenceSpec&, const RoundUpdates& round, std::vector<float>& out);
void trimmed_mean(const scenario::DefenceSpec& spec, const RoundUpdates& round, std::vector<float>& out);
void krum(const scenario::DefenceSpec&, const RoundUpdates& round, std::vector<float>& out);
void multikrum(const scenario::DefenceSpec& spec, const RoundUpdates& round, std::vector<float>& out);
void bulyan(const scenario::DefenceSpec&, const RoundUpdates& round, std::vector<float>& out);
void norm_bound(const scenario::DefenceSpec& spec, const RoundUpdates& round, std::vector<float>& out);

// f for a round of n updates: defence.byzantine, or the attackers' share of the devices times n, rounded up.
int64_t assumed_byzantine(const scenario::DefenceSpec& spec, double attacker_share, int64_t n);

// Krum's scores (krum.cpp): per update, the sum of squared distances to its n - f - 2 nearest
// others (at least 1 of them when n <= f + 2), in double.
std::vector<double> krum_scores(std::span<const std::vector<float>> updates, int64_t byzantine);

}  // namespace edgetrain::strategy
