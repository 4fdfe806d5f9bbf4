// Fitting a profile to measured steps: the knobs a fit may turn, each a multiplicative factor on
// some of the profile's figures, chosen to minimise the squared log error of the predicted step
// times (a relative error, so a 10 s step and a 10 ms step weigh alike). Nelder-Mead in log space:
// deterministic, no library, a handful of knobs and points.
#pragma once

#include <cstdint>
#include <vector>

#include "compute/layer.hpp"
#include "compute/roofline.hpp"

namespace edgetrain::compute {

enum class Knob {
  flops,      // the compute ceiling
  bytes,      // the memory ceiling
  overhead,   // the per-layer overhead
  depthwise,  // the depthwise convolution's efficiency
  speed,      // the whole device faster or slower: both ceilings up, the overhead down, by one factor
};

struct Point {
  const Layers* layers = nullptr;
  int64_t batch = 0;
  double step_s = 0;  // measured
};

// `start` with the knobs turned to fit `points` (needs at least one point; knobs the points do not
// inform stay near their start).
Profile fit_profile(const Profile& start, const std::vector<Knob>& knobs, const std::vector<Point>& points);

// `p` with one knob's factor applied.
Profile turned(Profile p, Knob knob, double factor);

// The single FLOP rate that fits `points` best under the FLOP model (geometric mean of attained rates).
double fit_flop_rate(const std::vector<Point>& points);

}  // namespace edgetrain::compute
