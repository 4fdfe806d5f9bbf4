// See devices.hpp.
#include "compute/devices.hpp"

#include <cmath>
#include <map>
#include <stdexcept>

#include "compute/fit.hpp"
#include "learn/catalogue.hpp"

namespace edgetrain::compute {
namespace {

const Layers& layers_of(const char* model) {
  const learn::CatalogueModel* m = learn::find_model(model);
  if (!m) throw std::logic_error(std::string("published measurement of an unknown model ") + model);
  return m->compute_layers;
}

std::vector<Point> points_of(std::string_view device, bool held_out) {
  std::vector<Point> points;
  for (const Measurement& m : published_measurements()) {
    if (m.device != device || m.held_out != held_out) continue;
    // A range is held out by rule (published.hpp); a fit needs one figure.
    if (m.range() && !held_out) throw std::logic_error(std::string("a published range is fitted: ") + m.model);
    points.push_back({&layers_of(m.model), m.batch, m.step_s()});
  }
  return points;
}

// A class no fitted step backs: the fitted Pi 4 made as fast as `flops_s` says, every other figure
// in the Pi 4's fitted proportion.
DeviceClass derived(const DeviceClass& rpi4, std::string name, std::string about, double flops_s, std::string basis) {
  DeviceClass d;
  d.profile = turned(rpi4.profile, Knob::speed, flops_s / rpi4.profile.flops_s);
  d.profile.name = std::move(name);
  d.profile.about = std::move(about);
  d.basis = "not fitted (no published training step of a catalogue model found): " + std::move(basis) +
            ", the other figures in the fitted Pi 4's proportions";
  return d;
}

std::vector<DeviceClass> build() {
  std::vector<DeviceClass> classes;
  // A fit turns fewer knobs than it has fitted steps, so that it cannot just pass through them (the
  // Jetson Nano's one step sets its one knob, and only its held-out step checks it).
  // Raspberry Pi 4 (5 fitted steps): every knob. The start only seeds the search: 4 cores x 3.4 GFLOP/s
  // (the home-iot fleet's pi4 class), 1 GB/s, 0.1 ms per layer.
  Profile start{"rpi4", "Raspberry Pi 4 Model B (4x Cortex-A72 at 1.5 GHz, LPDDR4), PyTorch on the CPU",
                13.6e9, 1e9, 1e-4};
  DeviceClass rpi4;
  rpi4.profile = fit_profile(start, {Knob::flops, Knob::bytes, Knob::overhead, Knob::depthwise}, points_of("rpi4", false));
  rpi4.fitted = true;
  rpi4.basis = "fitted to published PyTorch training steps (compute ceiling, memory ceiling, per-layer overhead, "
               "depthwise efficiency)";
  classes.push_back(rpi4);
  // Raspberry Pi 5 (4 fitted steps): the same software on a faster ARM core, so its own compute and memory
  // ceilings and overhead from the fitted Pi 4's, and the Pi 4's depthwise efficiency (how well PyTorch's
  // CPU kernels run depthwise convolutions, which the Pi 5 shares).
  DeviceClass rpi5;
  Profile p5 = rpi4.profile;
  p5.name = "rpi5";
  p5.about = "Raspberry Pi 5 (4x Cortex-A76 at 2.4 GHz, LPDDR4X), PyTorch on the CPU";
  rpi5.profile = fit_profile(p5, {Knob::flops, Knob::bytes, Knob::overhead}, points_of("rpi5", false));
  rpi5.fitted = true;
  rpi5.basis = "fitted to published PyTorch training steps (compute ceiling, memory ceiling, per-layer overhead "
               "over the fitted Pi 4's; the Pi 4's depthwise efficiency)";
  classes.push_back(rpi5);
  // Jetson Nano (1 fitted step, ResNet-18 only): one speed factor over a start derived as the classes
  // below are; no published step of another model informs its shape.
  const DeviceClass nano_start =
      derived(rpi4, "jetson_nano",
              "NVIDIA Jetson Nano (128-core Maxwell GPU at 921 MHz, 25.6 GB/s LPDDR4), training on the GPU",
              0.4 * 128 * 0.921e9 * 2, "");
  DeviceClass nano;
  nano.profile = fit_profile(nano_start.profile, {Knob::speed}, points_of("jetson_nano", false));
  nano.fitted = true;
  nano.basis =
      "fitted to a published PyTorch training step of ResNet-18 on the GPU (one speed factor over the fitted Pi 4's "
      "shape, started at 40% of the GPU's FP32 peak: 128 cores x 921 MHz x 2; "
      "https://cpu-gpu.alldbin.com/graphics-card-comparison/Jetson-TX2-GPU-and-Jetson-Nano-comparison.html)";
  classes.push_back(nano);
  // GPU boards: FP32 peak (CUDA cores x clock x 2) at the 40% the factory fleet's jetson class assumes.
  classes.push_back(derived(rpi4, "jetson_orin_nano",
                            "NVIDIA Jetson Orin Nano 8 GB (1024-core Ampere GPU at 625 MHz, 68 GB/s LPDDR5), training on "
                            "the GPU",
                            0.4 * 1024 * 0.625e9 * 2,
                            "compute ceiling 40% of the GPU's FP32 peak (1024 cores x 625 MHz x 2; https://www.brojogopalsapui.com/"
                            "ai-foundations/sub_contents/AI_hardware/jetson_orin_nano_light.html), as the factory fleet's jetson"));
  classes.push_back(derived(rpi4, "phone_midrange", "Mid-range smartphone (Snapdragon 778G class, 4x A78 + 4x A55), CPU",
                            8 * 6e9, "compute ceiling 8 cores x 6 GFLOP/s (the phones fleet's midrange class)"));
  classes.push_back(derived(rpi4, "nuc", "Intel NUC 11 class mini PC (Core i5-1135G7, 4 cores, AVX-512), CPU", 4 * 40e9,
                            "compute ceiling 4 cores x 40 GFLOP/s (the home-iot fleet's nuc class)"));
  return classes;
}

std::vector<Check> check_all() {
  std::vector<Check> checks;
  std::map<std::string, double, std::less<>> flop_rate;  // per device, fitted on its fitted points
  for (const Measurement& m : published_measurements()) {
    const DeviceClass* d = find_device(m.device);
    if (!d) throw std::logic_error(std::string("published measurement of an unknown device ") + m.device);
    // A derived class has no fitted step: its FLOP model runs at the compute ceiling it was derived from.
    if (!flop_rate.count(m.device))
      flop_rate[m.device] = d->fitted ? fit_flop_rate(points_of(m.device, false)) : d->profile.flops_s;
    const Layers& layers = layers_of(m.model);
    checks.push_back({&m, step_cost(layers, m.batch, d->profile).step_s,
                      flop_model_step_s(layers, m.batch, flop_rate[m.device])});
  }
  return checks;
}

}  // namespace

const std::vector<DeviceClass>& device_classes() {
  static const std::vector<DeviceClass> classes = build();
  return classes;
}

const DeviceClass* find_device(std::string_view name) {
  for (const DeviceClass& d : device_classes()) {
    if (d.profile.name == name) return &d;
  }
  return nullptr;
}

const std::vector<Check>& published_checks() {
  static const std::vector<Check> checks = check_all();
  return checks;
}

std::optional<double> held_out_band(std::string_view device, bool flop_model) {
  std::optional<double> band;
  for (const Check& c : published_checks()) {
    if (!c.measurement->held_out) continue;
    // Over all devices: the fitted classes only (a derived class's check measures its derivation).
    if (device.empty() ? !find_device(c.measurement->device)->fitted : c.measurement->device != device) continue;
    const double e = std::fabs(flop_model ? c.flop_model_error() : c.roofline_error());
    band = std::max(band.value_or(0.0), e);
  }
  return band;
}

}  // namespace edgetrain::compute
