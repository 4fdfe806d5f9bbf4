// The device classes `edgetrain cost --device` knows: a roofline profile each, fitted to published
// training steps where some were found (compute/published.hpp), else derived from a datasheet or the
// shipped fleets' FLOP speed and the fitted Pi 4's proportions (said in `basis`). Built on first use:
// the fits run in a few milliseconds, so the profiles can never drift from their data.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compute/published.hpp"
#include "compute/roofline.hpp"

namespace edgetrain::compute {

struct DeviceClass {
  Profile profile;
  bool fitted = false;  // false: derived, no published step backs it
  std::string basis;    // one line: what the figures rest on
};

const std::vector<DeviceClass>& device_classes();
const DeviceClass* find_device(std::string_view name);

// One published step beside both models' predictions: the compute model with the fitted profile, and
// the FLOP model with the one FLOP rate that fits the same device's fitted points best.
struct Check {
  const Measurement* measurement;
  double roofline_s, flop_model_s;
  // Relative errors (for a published range, against its farther end: published.hpp's relative_error).
  double roofline_error() const { return relative_error(*measurement, roofline_s); }
  double flop_model_error() const { return relative_error(*measurement, flop_model_s); }
};
const std::vector<Check>& published_checks();

// The largest |relative error| over the held-out checks of `device` (all devices when empty), for the
// compute model or the FLOP model; none when no held-out step exists.
std::optional<double> held_out_band(std::string_view device, bool flop_model);

}  // namespace edgetrain::compute
