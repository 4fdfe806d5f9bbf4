// This machine's compute profile, measured: real LibTorch training steps of the built-in models (mlp
// and cnn at a few widths and batch sizes) are timed on one thread, and the roofline profile of
// compute/roofline.hpp is fitted to them (compute ceiling, memory ceiling, per-layer overhead; no
// built-in model has a depthwise convolution, so that efficiency stays 1). `edgetrain
// calibrate-compute` writes it; `edgetrain cost --device FILE` reads it. Wall-clock times: the
// profile differs between runs by the machine's noise, which is why nothing else in a run uses them.
#pragma once

#include <string>
#include <vector>

#include "compute/roofline.hpp"
#include "learn/model.hpp"

namespace edgetrain::backend {

struct TimedStep {
  std::string label;  // e.g. "cnn 10-20/50 batch 64"
  learn::ModelConfig config;
  int64_t batch = 0;
  compute::Layers layers;
  double step_s = 0;  // the fastest of max(5, `repeats`) timed steps, after three untimed
};

struct ComputeCalibration {
  compute::Profile profile;
  std::vector<TimedStep> steps;
};

// `repeats` >= 1 timed steps per configuration.
ComputeCalibration calibrate_compute(int repeats);

// The profile file (compute/profile_file.hpp) with the timed steps and the fit's prediction of each.
std::string calibration_json(const ComputeCalibration& c);

}  // namespace edgetrain::backend
