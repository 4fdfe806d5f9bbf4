// See class_fidelity.hpp.
#include "compute/class_fidelity.hpp"

#include <algorithm>
#include <cmath>

#include "compute/devices.hpp"
#include "compute/spearman.hpp"

namespace edgetrain::compute {
namespace {

void widen(std::optional<double>& largest, double error) {
  largest = std::max(largest.value_or(0.0), std::fabs(error));
}

std::vector<ClassFidelity> summarise() {
  std::vector<ClassFidelity> out;
  for (const DeviceClass& d : device_classes()) {
    ClassFidelity f;
    f.device = d.profile.name;
    std::vector<double> published, roofline, flop_model;
    for (const Check& c : published_checks()) {
      const Measurement& m = *c.measurement;
      if (m.device != f.device) continue;
      (m.held_out ? f.held_out_steps : f.fitted_steps)++;
      if (std::find(f.models.begin(), f.models.end(), m.model) == f.models.end()) f.models.emplace_back(m.model);
      LargestError& e = m.held_out ? f.held_out : f.fitted;
      widen(e.roofline, c.roofline_error());
      widen(e.flop_model, c.flop_model_error());
      if (!m.range()) {
        published.push_back(m.step_s());
        roofline.push_back(c.roofline_s);
        flop_model.push_back(c.flop_model_s);
      }
    }
    if (f.fitted_steps + f.held_out_steps == 0) continue;
    f.spearman_roofline = spearman(roofline, published);
    f.spearman_flop_model = spearman(flop_model, published);
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

const std::vector<ClassFidelity>& class_fidelity() {
  static const std::vector<ClassFidelity> classes = summarise();
  return classes;
}

const ClassFidelity* find_class_fidelity(std::string_view device) {
  for (const ClassFidelity& f : class_fidelity())
    if (f.device == device) return &f;
  return nullptr;
}

}  // namespace edgetrain::compute
