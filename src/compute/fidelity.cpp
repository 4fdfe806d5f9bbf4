// See fidelity.hpp. The published checks cover convolutional image models only: a band is given for
// those, never extrapolated to BERT or the small built-in models, and a class whose published steps are
// all one model backs a band for that model only.
#include "compute/fidelity.hpp"

#include <cstdio>
#include <stdexcept>

#include "compute/class_fidelity.hpp"
#include "compute/devices.hpp"
#include "learn/catalogue.hpp"

namespace edgetrain::compute {
namespace {

std::string percent(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.0f%%", 100 * x);
  return text;
}

}  // namespace

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
  const ClassFidelity* c = find_class_fidelity(profile);
  if (!d->fitted) {
    f.basis = d->basis;
  } else if (!image_model) {
    f.basis = "no published step of this model family (the profile was fitted on convolutional image models)";
  } else if (c && c->models.size() == 1 && c->models.front() != model) {
    f.basis = "no published step of this model on this class: its published steps are all " + c->models.front();
  } else {
    f.error_band = held_out_band(profile, false);
    if (!f.error_band) {
      f.basis = "no held-out step";
    } else if (*f.error_band > kHeldOutGoal) {
      f.basis = "largest held-out error of this profile's published steps, over the " + percent(kHeldOutGoal) +
                " goal: the profile misses steps it did not see by more than the goal allows";
    } else {
      f.basis =
          "largest held-out error of this profile's published steps, within the " + percent(kHeldOutGoal) + " goal";
    }
    if (f.error_band && c && c->models.size() == 1)
      f.basis += "; its published steps are all " + c->models.front() + ": a band for that model only";
  }
  return f;
}

}  // namespace edgetrain::compute
