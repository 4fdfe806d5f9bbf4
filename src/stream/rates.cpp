// Per-device stream rates: the ScaDLES presets and one seeded draw per device (see rates.hpp).
#include "stream/rates.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <random>

#include "util/format.hpp"
#include "util/limits.hpp"
#include "util/seed.hpp"

namespace edgetrain::stream {

using util::format_number;

namespace {

void require_finite(double x, const std::string& what) {
  if (!std::isfinite(x))
    throw StreamError("stream rate: " + what + " must be a finite number, got " + format_number(x));
}

void require_at_most_max(double x, const std::string& what) {
  if (x > util::kMaxRate) {
    throw StreamError("stream rate: " + what + " must be at most " + format_number(util::kMaxRate) +
                      " samples/s, got " + format_number(x));
  }
}

}  // namespace

double draw_rate(const RateDistribution& d, uint64_t seed, size_t device_index) {
  if (d.dist == "constant") {
    require_finite(d.value, "value");
    if (d.value <= 0) throw StreamError("stream rate: a constant rate must be > 0, got " + format_number(d.value));
    require_at_most_max(d.value, "a constant rate");
    return d.value;
  }
  if (d.dist == "list") {
    if (d.values.empty()) throw StreamError("stream rate: the list of rates is empty");
    for (double v : d.values) {
      require_finite(v, "every listed rate");
      if (v <= 0) throw StreamError("stream rate: every listed rate must be > 0, got " + format_number(v));
      require_at_most_max(v, "every listed rate");
    }
    return d.values[device_index % d.values.size()];
  }
  // A generator of its own per device: adding or removing devices leaves the others' rates alone.
  std::mt19937_64 rng(util::derive_seed(seed, "stream-rate", device_index));
  if (d.dist == "uniform") {
    require_finite(d.mean, "mean");
    require_finite(d.spread, "spread");
    if (d.mean <= 0) throw StreamError("stream rate: a uniform rate needs mean > 0, got " + format_number(d.mean));
    if (d.spread < 0)
      throw StreamError("stream rate: a uniform rate needs spread >= 0, got " + format_number(d.spread));
    const double r =
        d.spread == 0 ? d.mean : std::uniform_real_distribution<double>(d.mean - d.spread, d.mean + d.spread)(rng);
    // Validation upstream asks for mean > spread; the floor only guards against a stream that never flows.
    return std::clamp(r, kMinNormalRate, util::kMaxRate);
  }
  if (d.dist == "normal") {
    require_finite(d.mean, "mean");
    require_finite(d.std, "std");
    if (d.mean <= 0) throw StreamError("stream rate: a normal rate needs mean > 0, got " + format_number(d.mean));
    if (d.std < 0) throw StreamError("stream rate: a normal rate needs std >= 0, got " + format_number(d.std));
    const double r = d.std == 0 ? d.mean : std::normal_distribution<double>(d.mean, d.std)(rng);
    return std::clamp(r, kMinNormalRate, util::kMaxRate);  // a huge std must not draw a huge rate
  }
  throw StreamError("stream rate: unknown distribution '" + d.dist + "' (expected constant, uniform, normal or list)");
}

}  // namespace edgetrain::stream
