// The ranges of a platform's quantities, one table for the platform file (platform/check.cpp),
// the scenario's what-if keys (platform.links.<link>.*, platform.hosts.<host>.speed) and fleet
// descriptions: a value outside them makes a run that can never finish (a host of 1e-300 f takes
// longer than the simulated clock can count for one step) or arithmetic that overflows. Each
// bound says why; docs/reference/limits.md lists them.
#pragma once

#include "util/limits.hpp"

namespace edgetrain::platform {

// Speeds per core, flop/s. 1 Mf is below any device that trains a model (a microcontroller does
// about 100 Mf) and is the step of a fleet's drawn speeds; 1 Pf is a thousand times the fastest
// accelerator.
inline constexpr double kMinSpeedFlops = 1e6;
inline constexpr double kMaxSpeedFlops = 1e15;

// Bandwidths, bit/s: 1 bit/s (the slowest link the tests simulate) to 1 Pbit/s, the bound of
// link bandwidth traces.
inline constexpr double kMinBandwidthBps = 1;
inline constexpr double kMaxBandwidthBps = 1e15;

// Latencies, s: 0 to the longest simulated time.
inline constexpr double kMaxLatencyS = util::kMaxTimeS;

// Watts of one host or link state: a megawatt is a whole data-centre row. With durations of at
// most 1e9 s, energies stay far below a double's range.
inline constexpr double kMaxWatts = 1e6;

}  // namespace edgetrain::platform
