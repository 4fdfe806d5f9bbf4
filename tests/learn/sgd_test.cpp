// SGD update rule (LibTorch's) checked by hand on two coordinates.
#include "learn/sgd.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <vector>

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

// Golden bits of three steps with and without momentum on 10,000 coordinates (a change of the
// loop must not move a single bit), values from the generator's raw bits.
TEST_CASE("sgd steps are bit-identical to the reference loop") {
  for (const double momentum : {0.0, 0.9}) {
    CAPTURE(momentum);
    std::mt19937_64 rng(5);
    auto value = [&] { return static_cast<float>(static_cast<double>(rng() >> 11) * 0x1.0p-52 - 1.0); };
    std::vector<float> w(10000);
    for (float& x : w) x = value();
    Sgd sgd(momentum, 5e-4);
    for (int step = 0; step < 3; ++step) {
      std::vector<float> g(w.size());
      for (float& x : g) x = value();
      sgd.step(w, g, 0.05);
    }
    uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the bit patterns
    for (float x : w) {
      const auto u = std::bit_cast<uint32_t>(x);
      for (int i = 0; i < 4; ++i) h = (h ^ ((u >> (8 * i)) & 0xffu)) * 0x100000001b3ULL;
    }
    CHECK(h == (momentum == 0 ? 13354628289271147496ULL : 5544062253833514420ULL));
  }
}
