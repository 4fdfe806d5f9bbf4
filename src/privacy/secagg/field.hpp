// Fixed point in Z_{2^b}: how a float update becomes the integer vector that secure aggregation sums
// (Bonawitz et al. 2017, section 3: inputs are vectors in Z_R, here R = 2^b). A value is clipped to
// [-range, range], scaled, rounded to the nearest integer and wrapped mod 2^b (negative values in two's
// complement). Rounding is deterministic: the same update always gives the same input, with no stream
// to seed; its error is at most 1/(2*scale) per element.
//
// The sum rule: each quantised value lies in [-L, L] with L = round(range*scale); the sum of n of them
// lies in [-nL, nL], and decoding reads a sum mod 2^b as a signed integer in [-2^(b-1), 2^(b-1)), so
// the decoded sum equals the sum of the quantised values exactly when n * 2L < 2^b.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace edgetrain::privacy::secagg {

struct FixedPoint {
  uint32_t bits = 32;  // b
  double range = 1.0;  // values are clipped to [-range, range]
  double scale = 1e6;  // levels per unit
};

// 2^b - 1: reduction mod 2^b of a uint32_t.
uint32_t field_mask(uint32_t bits);

// L = round(range * scale), the largest magnitude a quantised value takes.
uint64_t max_level(const FixedPoint& fp);

// True when the sum of `n` quantised inputs decodes exactly: n * 2L < 2^b.
bool sum_fits(const FixedPoint& fp, uint64_t n);

// The largest scale for which `n` inputs clipped to `range` sum exactly in b bits: L = floor((2^b - 1) /
// (2n)) levels, scale = L / range. Throws when not even one level is left (2n > 2^b - 1).
double scale_for(uint64_t n, double range, uint32_t bits);

// Each value clipped, scaled, rounded to nearest and wrapped mod 2^b; `clipped` (when given) counts the
// values outside [-range, range]. Throws on a NaN value or a fixed point whose single input does not fit
// (2L >= 2^b).
std::vector<uint32_t> quantise(std::span<const float> values, const FixedPoint& fp, int64_t* clipped = nullptr);

// A sum mod 2^b read as a signed integer and divided by scale: the sum of the dequantised inputs.
std::vector<double> decode_sum(std::span<const uint32_t> sum, const FixedPoint& fp);

// acc += x mod 2^b, element-wise (the plain sum the protocol must reproduce).
void add_mod(std::span<uint32_t> acc, std::span<const uint32_t> x, uint32_t bits);

}  // namespace edgetrain::privacy::secagg
