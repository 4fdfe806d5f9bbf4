// The defences' table (defence.hpp): a new rule is a function in a file of its own and a row here.
#include <cmath>
#include <stdexcept>

#include "strategy/defence.hpp"

namespace edgetrain::strategy {

namespace {

// Sorting each coordinate's n values.
double sort_flops(const scenario::DefenceSpec&, double n, double d, double) { return d * n * std::max(1.0, std::log2(n)); }
// Krum's pairwise distances (3 FLOPs a value of each pair), then the mean of what it keeps.
double krum_flops(const scenario::DefenceSpec&, double n, double d, double) { return 1.5 * n * (n - 1) * d + n * d; }
// Bulyan: theta Krum selections over shrinking sets, then a sort per coordinate.
double bulyan_flops(const scenario::DefenceSpec& s, double n, double d, double f) {
  const double theta = std::max(1.0, n - 2 * f);
  return theta * krum_flops(s, n, d, f) + sort_flops(s, theta, d, f);
}
// A norm and a scale per update, then the weighted sum.
double bound_flops(const scenario::DefenceSpec&, double n, double d, double) { return 4 * n * d; }

constexpr DefenceKind kKinds[] = {
    {"median", coordinate_median, sort_flops}, {"trimmed-mean", trimmed_mean, sort_flops},
    {"krum", krum, krum_flops},                {"multikrum", multikrum, krum_flops},
    {"bulyan", bulyan, bulyan_flops},          {"norm-bound", norm_bound, bound_flops},
};

}  // namespace

int64_t assumed_byzantine(const scenario::DefenceSpec& spec, double attacker_share, int64_t n) {
  if (spec.byzantine) return *spec.byzantine;
  return static_cast<int64_t>(std::ceil(attacker_share * static_cast<double>(n) - 1e-9));
}

const DefenceKind& defence_kind(const std::string& kind) {
  for (const DefenceKind& k : kKinds)
    if (kind == k.name) return k;
  throw std::logic_error("no defence kind \"" + kind + "\"");
}

}  // namespace edgetrain::strategy
