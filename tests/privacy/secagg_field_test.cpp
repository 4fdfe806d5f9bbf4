// Fixed point in Z_{2^b}: quantisation round trips within 1/scale, clipping holds values to the range,
// and the sum rule n * 2L < 2^b decides when a wrapped sum decodes exactly.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "privacy/secagg/field.hpp"

using namespace edgetrain::privacy::secagg;

TEST_CASE("quantise then decode gives each value back within 1/scale") {
  for (uint32_t bits : {16u, 24u, 32u}) {
    const FixedPoint fp{bits, 2.0, scale_for(1, 2.0, bits)};
    std::mt19937_64 rng(bits);
    std::uniform_real_distribution<float> value(-2.0f, 2.0f);
    std::vector<float> x(1000);
    for (auto& v : x) v = value(rng);
    const auto q = quantise(x, fp);
    const auto back = decode_sum(q, fp);
    for (size_t i = 0; i < x.size(); ++i) CHECK(std::abs(back[i] - x[i]) <= 1.0 / fp.scale);
  }
}

TEST_CASE("values beyond the range are clipped to it, NaN is refused") {
  const FixedPoint fp{32, 1.0, 1000.0};
  const std::vector<float> x{5.0f, -7.0f, 0.25f};
  const auto back = decode_sum(quantise(x, fp), fp);
  CHECK(back == std::vector<double>{1.0, -1.0, 0.25});
  const std::vector<float> bad{NAN};
  CHECK_THROWS_AS(quantise(bad, fp), std::invalid_argument);
}

TEST_CASE("the sum of n inputs decodes exactly when n * 2L < 2^b, and scale_for picks the largest such scale") {
  const uint32_t bits = 16, n = 10;
  const double scale = scale_for(n, 1.0, bits);
  const FixedPoint fp{bits, 1.0, scale};
  CHECK(max_level(fp) == (65535 / 20));
  CHECK(sum_fits(fp, n));
  CHECK_FALSE(sum_fits(fp, n + 1));
  // n inputs all at +range, then all at -range: the extremes still decode exactly.
  for (float extreme : {1.0f, -1.0f}) {
    const std::vector<float> x(3, extreme);
    std::vector<uint32_t> sum(3, 0);
    for (uint32_t i = 0; i < n; ++i) add_mod(sum, quantise(x, fp), bits);
    for (double v : decode_sum(sum, fp)) CHECK(v == doctest::Approx(n * extreme * (max_level(fp) / scale)));
  }
  // One more input at +range passes 2^(b-1) and reads as negative.
  const std::vector<float> one(1, 1.0f);
  std::vector<uint32_t> sum(1, 0);
  for (uint32_t i = 0; i < n + 1; ++i) add_mod(sum, quantise(one, fp), bits);
  CHECK(decode_sum(sum, fp)[0] < 0);
  CHECK_THROWS_AS(scale_for(40000, 1.0, 16), std::invalid_argument);
}
