// SGD update rule (LibTorch's) checked by hand on two coordinates.
#include "learn/sgd.hpp"

#include <doctest/doctest.h>

using edgetrain::learn::Sgd;

TEST_CASE("plain SGD: w -= lr * g") {
  Sgd sgd(0.0, 0.0);
  std::vector<float> w{1.0f, -2.0f};
  sgd.step(w, std::vector<float>{0.5f, 1.0f}, 0.1);
  CHECK(w[0] == doctest::Approx(0.95));
  CHECK(w[1] == doctest::Approx(-2.1));
}

TEST_CASE("momentum and weight decay follow buf = mu*buf + (g + wd*w)") {
  Sgd sgd(0.9, 0.1);
  std::vector<float> w{1.0f};
  sgd.step(w, std::vector<float>{1.0f}, 0.5);  // d = 1 + 0.1 = 1.1; buf = 1.1; w = 1 - 0.55
  CHECK(w[0] == doctest::Approx(0.45));
  sgd.step(w, std::vector<float>{1.0f}, 0.5);  // d = 1.045; buf = 0.99 + 1.045 = 2.035; w = 0.45 - 1.0175
  CHECK(w[0] == doctest::Approx(-0.5675));
}

TEST_CASE("gradient of the wrong size is rejected") {
  Sgd sgd(0.0, 0.0);
  std::vector<float> w{1.0f};
  CHECK_THROWS(sgd.step(w, std::vector<float>{1.0f, 2.0f}, 0.1));
}
