// See fidelity.hpp. The published checks cover convolutional image models only: a band is given for
// those, never extrapolated to BERT or the small built-in models.
#include "compute/fidelity.hpp"

#include <stdexcept>

#include "compute/devices.hpp"
#include "learn/catalogue.hpp"

namespace edgetrain::compute {

StepFidelity step_fidelity(std::string_view model, std::string_view profile) {
  StepFidelity f;
  f.profile = std::string(profile);
  const bool image_model = learn::find_model(model) && model != "bert-base";
  if (profile.empty()) {
    f.compute_model = "flops-over-host-speed";
    if (image_model) {
      f.error_band = held_out_band("", true);
      f.basis = "FLOP model's largest held-out error on published steps, with the FLOP rate fitted per device "
                "(a platform speed not fitted to the device errs more)";
    } else {
      f.basis = "no published step of this model family";
    }
    return f;
  }
  const DeviceClass* d = find_device(profile);
  if (!d) throw std::invalid_argument("unknown device profile \"" + std::string(profile) + "\"");
  f.compute_model = "roofline-by-layer-kind";
  if (!d->fitted) {
    f.basis = d->basis;
  } else if (!image_model) {
    f.basis = "no published step of this model family (the profile was fitted on convolutional image models)";
  } else {
    f.error_band = held_out_band(profile, false);
    f.basis = f.error_band ? "largest held-out error of this profile's published steps" : "no held-out step";
  }
  return f;
}

}  // namespace edgetrain::compute
