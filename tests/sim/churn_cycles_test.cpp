// A device's random churn resumed from the count of its draws (a population's churn) plans the same
// cycles as its generator drawn in sequence (a device's own churn actor).
#include "sim/core/churn_cycles.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "util/limits.hpp"

using edgetrain::sim::ChurnCycle;
using edgetrain::sim::ChurnCycles;

TEST_CASE("churn cycles resumed from their draws are the cycles drawn in sequence") {
  edgetrain::scenario::DeviceFaultSpec spec;
  spec.device = "*";
  spec.mtbf_s = 20;
  spec.mttr_s = 1e-7;  // below the clock's resolution: every down time is one tick
  ChurnCycles sequential(7, 3, spec);
  std::vector<ChurnCycle> planned;
  std::vector<uint64_t> drawn;
  double on_at = 0;
  for (int k = 0; k < 50; ++k) {
    planned.push_back(sequential.next(on_at));
    drawn.push_back(sequential.drawn());
    CHECK(planned.back().off_at > on_at);
    CHECK(planned.back().on_at == planned.back().off_at + edgetrain::util::kClockResolutionS);
    on_at = planned.back().on_at;
  }
  CHECK(drawn.back() >= 100);  // at least a value per span
  for (size_t k = 1; k < planned.size(); ++k) {
    ChurnCycles resumed(7, 3, spec, drawn[k - 1]);
    const ChurnCycle c = resumed.next(planned[k - 1].on_at);
    CHECK(c.off_at == planned[k].off_at);
    CHECK(c.on_at == planned[k].on_at);
    CHECK(resumed.drawn() == drawn[k]);
  }
  // Another device, another seed: other cycles.
  CHECK(ChurnCycles(7, 4, spec).next(0).off_at != planned[0].off_at);
}
