// See gaussian_noise.hpp.
#include "privacy/gaussian_noise.hpp"

#include <cmath>
#include <numbers>

#include "util/seed.hpp"

namespace edgetrain::privacy {

namespace {
// A uniform in (0, 1]: the top 53 bits of the word, plus one, over 2^53 (never 0: log(u) is finite).
double uniform_open_zero(uint64_t word) { return (static_cast<double>(word >> 11) + 1.0) * 0x1.0p-53; }
}  // namespace

void add_gaussian_noise(std::span<float> v, double stddev, uint64_t seed) {
  const uint64_t base = util::mix64(seed);
  for (size_t k = 0; k < v.size(); k += 2) {
    const double radius = stddev * std::sqrt(-2.0 * std::log(uniform_open_zero(util::mix64(base + k))));
    const double angle = 2.0 * std::numbers::pi * uniform_open_zero(util::mix64(base + k + 1));
    v[k] += static_cast<float>(radius * std::cos(angle));
    if (k + 1 < v.size()) v[k + 1] += static_cast<float>(radius * std::sin(angle));
  }
}

}  // namespace edgetrain::privacy
