// See churn_cycles.hpp.
#include "sim/core/churn_cycles.hpp"

#include <algorithm>

#include "util/limits.hpp"
#include "util/seed.hpp"

namespace edgetrain::sim {

ChurnCycles::ChurnCycles(uint64_t scenario_seed, size_t device, const scenario::DeviceFaultSpec& spec, uint64_t drawn)
    : engine_{std::mt19937_64(util::derive_seed(scenario_seed, "churn", device)), drawn},
      up_(1.0 / spec.mtbf_s.value()),
      down_(1.0 / spec.mttr_s.value()) {
  engine_.rng.discard(drawn);
}

ChurnCycle ChurnCycles::next(double on_at) {
  auto at_least_tick = [](double d) { return std::max(d, util::kClockResolutionS); };
  const double off_at = on_at + at_least_tick(up_(engine_));
  return {off_at, off_at + at_least_tick(down_(engine_))};
}

}  // namespace edgetrain::sim
