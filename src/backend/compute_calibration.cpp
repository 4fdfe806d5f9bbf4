// See compute_calibration.hpp.
#include "backend/compute_calibration.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "compute/fit.hpp"
#include "compute/profile_file.hpp"
#include "learn/model_shape.hpp"

namespace edgetrain::backend {
namespace {

struct Setting {
  const char* name;
  std::vector<int64_t> conv, hidden;
  int64_t channels, side, batch;
};

// Dense-bound, convolution-bound and overhead-bound steps: small and large batches of both models.
const Setting kSettings[] = {
    {"mlp", {}, {128}, 1, 28, 8},          {"mlp", {}, {128}, 1, 28, 128},   {"mlp", {}, {512, 512}, 1, 28, 32},
    {"cnn", {10, 20}, {50}, 1, 28, 8},     {"cnn", {10, 20}, {50}, 1, 28, 64}, {"cnn", {32, 64}, {128}, 1, 28, 32},
    {"cnn", {16, 32}, {64}, 3, 32, 32},
};

std::string label_of(const Setting& s) {
  std::string l = s.name;
  auto list = [](const std::vector<int64_t>& v) {
    std::string t;
    for (int64_t x : v) t += (t.empty() ? "" : "-") + std::to_string(x);
    return t;
  };
  if (!s.conv.empty()) l += " " + list(s.conv) + "/" + list(s.hidden);
  else l += " " + list(s.hidden);
  return l + " on " + std::to_string(s.channels) + "x" + std::to_string(s.side) + "x" + std::to_string(s.side) +
         ", batch " + std::to_string(s.batch);
}

// Steps timed per setting at the least: the fastest of five is steady where one step is not.
constexpr int kMinRepeats = 5;
// Untimed steps first: LibTorch's allocator and kernel caches settle over the first few.
constexpr int kWarmSteps = 3;

double time_steps(const learn::ModelConfig& config, int64_t batch, int repeats) {
  const learn::Model model(config);
  learn::Workspace workspace(model);
  learn::Dataset data;
  data.channels = config.channels;
  data.height = config.height;
  data.width = config.width;
  data.classes = config.classes;
  const int64_t n = batch;
  data.features.resize(static_cast<size_t>(n * data.sample_size()));
  for (size_t i = 0; i < data.features.size(); ++i) data.features[i] = static_cast<float>((i * 7919) % 255) / 255.0f;
  for (int64_t i = 0; i < n; ++i) data.labels.push_back(i % config.classes);
  std::vector<int64_t> indices(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) indices[static_cast<size_t>(i)] = i;
  const std::vector<float> params = model.init_params(1);
  std::vector<float> gradient(params.size());
  std::vector<double> times;
  for (int r = 1 - kWarmSteps; r <= repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    workspace.gradient(params, data, indices, gradient);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) times.push_back(s);
  }
  // The fastest step: the one least disturbed by whatever else the machine ran meanwhile (a single
  // step's time varies by tens of percent under load).
  return *std::min_element(times.begin(), times.end());
}

}  // namespace

ComputeCalibration calibrate_compute(int repeats) {
  ComputeCalibration c;
  for (const Setting& s : kSettings) {
    TimedStep t;
    t.label = label_of(s);
    t.config.name = s.name;
    t.config.conv_channels = s.conv;
    t.config.hidden = s.hidden;
    t.config.channels = s.channels;
    t.config.height = t.config.width = s.side;
    t.batch = s.batch;
    t.layers = learn::model_shape(t.config).compute_layers;
    t.step_s = time_steps(t.config, s.batch, std::max(kMinRepeats, repeats));
    c.steps.push_back(std::move(t));
  }
  std::vector<compute::Point> points;
  for (const TimedStep& t : c.steps) points.push_back({&t.layers, t.batch, t.step_s});
  // The search starts from round figures of a small CPU core; the fit moves them.
  const compute::Profile start{"this-machine", "measured by edgetrain calibrate-compute (one LibTorch thread)", 1e10,
                               1e10, 1e-5};
  c.profile = compute::fit_profile(start, {compute::Knob::flops, compute::Knob::bytes, compute::Knob::overhead}, points);
  // Least squares leaves the largest over- and under-estimate unequal; one speed factor (which
  // scales every step alike) centres them, so no step of this machine is off by more than needed.
  double low = INFINITY, high = -INFINITY;
  for (const TimedStep& t : c.steps) {
    const double e = std::log(compute::step_cost(t.layers, t.batch, c.profile).step_s / t.step_s);
    low = std::min(low, e);
    high = std::max(high, e);
  }
  c.profile = compute::turned(c.profile, compute::Knob::speed, std::exp((low + high) / 2));
  return c;
}

std::string calibration_json(const ComputeCalibration& c) {
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const TimedStep& t : c.steps) {
    points.push_back({{"step", t.label},
                      {"batch", t.batch},
                      {"measured_s", t.step_s},
                      {"fitted_s", compute::step_cost(t.layers, t.batch, c.profile).step_s}});
  }
  return compute::profile_json(c.profile, points.dump());
}

}  // namespace edgetrain::backend
