// Published training-step measurements the device profiles are fitted to and checked against, each
// with its source and the figures as the source gives them. Some are held out of the fit: they
// measure how far the fitted model is from steps it never saw (results/fidelity/compute.md).
//
// Which steps are held out is one rule, fixed before any error was seen (tests/compute checks the
// table keeps it): within a device class, the steps whose source gives one figure are ordered by
// training FLOPs per step (ties in table order) and every second one is held out, starting with the
// second and never the last (a fit should not have to extrapolate to the largest step). A step the
// source gives as a range ("~7-8 minutes") is always held out: a fit needs one figure.
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
  double seconds;      // as published: the time of `steps` training steps (a range's low end)
  int64_t steps;
  bool held_out;       // kept out of the fit
  const Source* source;
  double seconds_high = 0;  // a published range's high end; 0 when the source gives one figure
  bool range() const { return seconds_high > 0; }
  double step_s() const { return seconds / static_cast<double>(steps); }
  double step_high_s() const { return (range() ? seconds_high : seconds) / static_cast<double>(steps); }
};

std::span<const Measurement> published_measurements();

// `predicted_s` against a measurement: its relative error, or for a range the error against the end
// it is farther from (the larger in magnitude: a band never rests on the kinder end).
double relative_error(const Measurement& m, double predicted_s);

}  // namespace edgetrain::compute
