// See field.hpp.
#include "privacy/secagg/field.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace edgetrain::privacy::secagg {
namespace {

void check_bits(uint32_t bits) {
  if (bits < 2 || bits > 32)
    throw std::invalid_argument("secagg field: bits must be in [2, 32], got " + std::to_string(bits));
}

void check_fixed_point(const FixedPoint& fp) {
  check_bits(fp.bits);
  if (!(fp.range > 0) || !std::isfinite(fp.range)) throw std::invalid_argument("secagg field: range must be positive");
  if (!(fp.scale > 0) || !std::isfinite(fp.scale)) throw std::invalid_argument("secagg field: scale must be positive");
}

}  // namespace

uint32_t field_mask(uint32_t bits) {
  check_bits(bits);
  return bits == 32 ? 0xffffffffu : (1u << bits) - 1;
}

uint64_t max_level(const FixedPoint& fp) {
  check_fixed_point(fp);
  const double level = std::round(fp.range * fp.scale);
  if (level >= 0x1p63) throw std::invalid_argument("secagg field: range * scale is beyond 2^63");
  return static_cast<uint64_t>(level);
}

bool sum_fits(const FixedPoint& fp, uint64_t n) {
  const auto total = static_cast<unsigned __int128>(n) * 2 * max_level(fp);
  return total < (static_cast<unsigned __int128>(1) << fp.bits);
}

double scale_for(uint64_t n, double range, uint32_t bits) {
  check_bits(bits);
  if (n == 0) throw std::invalid_argument("secagg field: the scale is chosen for at least one input");
  if (!(range > 0) || !std::isfinite(range)) throw std::invalid_argument("secagg field: range must be positive");
  const uint64_t levels = ((uint64_t{1} << bits) - 1) / (2 * n);
  if (levels == 0)
    throw std::invalid_argument("secagg field: " + std::to_string(n) + " inputs leave no quantisation level in " +
                                std::to_string(bits) + " bits");
  return static_cast<double>(levels) / range;
}

std::vector<uint32_t> quantise(std::span<const float> values, const FixedPoint& fp, int64_t* clipped) {
  if (!sum_fits(fp, 1))
    throw std::invalid_argument("secagg field: range * scale = " + std::to_string(fp.range * fp.scale) +
                                " does not fit a single input in " + std::to_string(fp.bits) + " bits");
  const uint32_t mask = field_mask(fp.bits);
  std::vector<uint32_t> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (std::isnan(v)) throw std::invalid_argument("secagg field: NaN at element " + std::to_string(i));
    const double within = v < -fp.range ? -fp.range : (v > fp.range ? fp.range : v);
    if (clipped && within != v) ++*clipped;
    const auto level = static_cast<int64_t>(std::llround(within * fp.scale));
    out[i] = static_cast<uint32_t>(static_cast<uint64_t>(level)) & mask;  // two's complement, then mod 2^b
  }
  return out;
}

std::vector<double> decode_sum(std::span<const uint32_t> sum, const FixedPoint& fp) {
  check_fixed_point(fp);
  const uint32_t mask = field_mask(fp.bits);
  const int64_t modulus = int64_t{1} << fp.bits;
  const int64_t half = modulus / 2;
  std::vector<double> out(sum.size());
  for (size_t i = 0; i < sum.size(); ++i) {
    auto level = static_cast<int64_t>(sum[i] & mask);
    if (level >= half) level -= modulus;
    out[i] = static_cast<double>(level) / fp.scale;
  }
  return out;
}

void add_mod(std::span<uint32_t> acc, std::span<const uint32_t> x, uint32_t bits) {
  if (acc.size() != x.size())
    throw std::invalid_argument("secagg field: adding vectors of lengths " + std::to_string(acc.size()) + " and " +
                                std::to_string(x.size()));
  const uint32_t mask = field_mask(bits);
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = (acc[i] + x[i]) & mask;
}

}  // namespace edgetrain::privacy::secagg
