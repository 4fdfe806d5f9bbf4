// What a run's step times rest on, for summary.json's `fidelity` section and `validate`: the compute
// model, the device profile, and the error band expected of a step from the published checks of
// results/fidelity/compute.md (the largest held-out error).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace edgetrain::compute {

struct StepFidelity {
  std::string compute_model;         // "roofline-by-layer-kind", or "flops-over-host-speed" without a profile
  std::string profile;               // the device class, or "" (none)
  std::optional<double> error_band;  // expected |relative error| of a step time; none when nothing measured backs it
  std::string basis;                 // one line: where the band comes from, or why there is none
};

// `model`: a model name (catalogue, mlp or cnn); `profile`: a device class of devices.hpp, or "" for
// the FLOP model (FLOPs / the platform's host speed). Throws std::invalid_argument for an unknown
// profile.
StepFidelity step_fidelity(std::string_view model, std::string_view profile);

}  // namespace edgetrain::compute
