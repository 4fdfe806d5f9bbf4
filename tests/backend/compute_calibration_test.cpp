// edgetrain calibrate-compute's measurement: a well-formed profile fitted to real LibTorch steps that
// is centred on them. Wall-clock times vary with the machine's load, so nothing here judges
// speed (that belongs in tools/bench); only the profile's form and its fit to its own points.
#include "backend/compute_calibration.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>

using namespace edgetrain;

TEST_CASE("compute calibration: real steps timed, a profile fitted to them, written as a profile file") {
  const backend::ComputeCalibration c = backend::calibrate_compute(1);
  REQUIRE(c.steps.size() >= 5);
  CHECK(c.profile.flops_s > 0);
  CHECK(c.profile.bytes_s > 0);
  CHECK(c.profile.layer_overhead_s >= 0);
  // How well three knobs fit this CPU is a fact about the CPU (one CI machine's worst step was off by
  // 3.1x under the suite's load), so it is reported by the command, not asserted here; the fitter's
  // own accuracy is checked on steps it predicted (tests/compute). What holds on any CPU: the fit is
  // centred, its largest over- and under-estimate equal in ratio.
  double low = INFINITY, high = -INFINITY;
  for (const auto& t : c.steps) {
    CAPTURE(t.label);
    CHECK(t.step_s > 0);
    const double e = std::log(compute::step_cost(t.layers, t.batch, c.profile).step_s / t.step_s);
    REQUIRE(std::isfinite(e));
    low = std::min(low, e);
    high = std::max(high, e);
  }
  CHECK(low <= 0);
  CHECK(high >= 0);
  CHECK(std::fabs(low + high) < 1e-9);
  const auto j = nlohmann::json::parse(backend::calibration_json(c));
  CHECK(j["flops_s"].get<double>() == c.profile.flops_s);
  CHECK(j["points"].size() == c.steps.size());
  CHECK(j["efficiency"]["depthwise"].get<double>() == 1.0);
}
