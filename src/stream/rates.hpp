// Per-device stream rates (samples per simulated second): drawn once per device, seeded, from
// a constant, a distribution or a list (the scenario module resolves the ScaDLES preset names
// S1, S2, S10, S20 into distributions).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/printable.hpp"
#include "util/input_error.hpp"

namespace edgetrain::stream {

// Its message is one line: control bytes quoted from a trace are escaped (util::printable).
class StreamError : public std::runtime_error, public util::InputError {
 public:
  explicit StreamError(const std::string& message) : std::runtime_error(util::printable(message)) {}
};

struct RateDistribution {
  std::string dist = "constant";  // constant | uniform | normal | list
  double value = 0;
  double mean = 0, spread = 0, std = 0;
  std::vector<double> values;
};

// Normal draws are clipped at this floor (samples/s) so every stream keeps flowing. Uniform
// draws are clipped at it too, which matters only if mean <= spread slipped past validation.
inline constexpr double kMinNormalRate = 1.0;

// The rate of device `device_index`: constant -> value; uniform -> U[mean-spread, mean+spread];
// normal -> N(mean, std); list -> values[device_index % size]. Draws are clipped to
// [kMinNormalRate, util::kMaxRate]; a constant or listed rate above util::kMaxRate is an error. Each device draws from
// its own generator (derive_seed(seed, "stream-rate", device index)), so adding a device changes no other rate. Throws
// StreamError for an unknown distribution or bad parameters (rates <= 0, mean <= 0, negative spread or std, an empty
// list, non-finite numbers).
double draw_rate(const RateDistribution& dist, uint64_t seed, size_t device_index);

}  // namespace edgetrain::stream
