// The noise generator: its moments are those of N(0, stddev^2), and each element's draw depends on the
// seed and its position alone (a prefix of a vector gets the same noise as the whole).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "privacy/gaussian_noise.hpp"

using namespace edgetrain::privacy;

TEST_CASE("the noise has mean 0, the standard deviation asked and Gaussian tails") {
  std::vector<float> v(200000, 0.0f);
  add_gaussian_noise(v, 2.5, 42);
  double sum = 0, squares = 0;
  int beyond_two_sigma = 0;
  for (float x : v) {
    sum += x;
    squares += static_cast<double>(x) * x;
    beyond_two_sigma += std::abs(x) > 5.0 ? 1 : 0;
  }
  const double n = static_cast<double>(v.size());
  CHECK(std::abs(sum / n) < 4 * 2.5 / std::sqrt(n));  // four standard errors
  CHECK(std::sqrt(squares / n) == doctest::Approx(2.5).epsilon(0.01));
  CHECK(beyond_two_sigma / n == doctest::Approx(0.0455).epsilon(0.05));  // P(|Z| > 2)
}

TEST_CASE("each element's draw depends on the seed and its position alone") {
  std::vector<float> whole(101, 1.0f), prefix(40, 1.0f), other(101, 1.0f);
  add_gaussian_noise(whole, 1.0, 7);
  add_gaussian_noise(prefix, 1.0, 7);
  add_gaussian_noise(other, 1.0, 8);
  for (size_t k = 0; k < prefix.size(); ++k) CHECK(prefix[k] == whole[k]);
  CHECK(other != whole);
}
