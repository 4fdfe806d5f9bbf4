// Per device class with published steps, what results/fidelity/compute.md summarises: how far the
// fitted profile (and, beside it, the FLOP model) is from the steps it was fitted to and from those it
// never saw, and whether it orders the models as the measurements do (Spearman's rank correlation).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace edgetrain::compute {

// The held-out error the issue sets as the goal for every class: a band above it says so
// (fidelity.hpp).
inline constexpr double kHeldOutGoal = 0.35;

struct LargestError {
  std::optional<double> roofline, flop_model;  // largest |relative error|; none without steps
};

struct ClassFidelity {
  std::string device;
  int fitted_steps = 0, held_out_steps = 0;
  std::vector<std::string> models;  // the distinct models of its steps, in table order
  LargestError fitted, held_out;
  // Predicted against published step times across all its steps given as one figure (fitted and held
  // out: a rank correlation ignores the fitted scale); none with fewer than 3.
  std::optional<double> spearman_roofline, spearman_flop_model;
};

// The classes that have published steps, in device_classes() order.
const std::vector<ClassFidelity>& class_fidelity();
const ClassFidelity* find_class_fidelity(std::string_view device);

}  // namespace edgetrain::compute
