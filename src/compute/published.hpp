// Published training-step measurements the device profiles are fitted to and checked against, each
// with its source and the figures as the source gives them. Some are held out of the fit: they
// measure how far the fitted model is from steps it never saw (results/fidelity/compute.md).
#pragma once

#include <cstdint>
#include <span>

namespace edgetrain::compute {

struct Source {
  const char* title;
  const char* url;
  const char* setting;  // what was measured, and how
};

struct Measurement {
  const char* device;  // a device class (devices.hpp)
  const char* model;   // a catalogue model (learn/catalogue.hpp) at its reference input
  int64_t batch;
  double seconds;      // as published: the time of `steps` training steps
  int64_t steps;
  bool held_out;       // kept out of the fit
  const Source* source;
  double step_s() const { return seconds / static_cast<double>(steps); }
};

std::span<const Measurement> published_measurements();

}  // namespace edgetrain::compute
