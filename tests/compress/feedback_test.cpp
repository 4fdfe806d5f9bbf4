// Error feedback (the residual keeps exactly what compression dropped, so nothing is lost over
// many steps) and ScaDLES's top-k norm gap on hand-computed vectors.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>

#include "compress/compressor.hpp"
#include "compress/family.hpp"
#include "helpers.hpp"

using namespace edgetrain::compress;

namespace {

using compress_test::random_vector;
using compress_test::total;
const auto layout = compress_test::layout_of_sizes;

}  // namespace

TEST_CASE("error feedback adds the residual and keeps what was not sent") {
  Config cfg;
  cfg.kind = "topk";
  cfg.ratio = 0.34;  // one entry of three
  auto c = make_topk(cfg, layout({3}));
  ErrorFeedback ef(3);
  CHECK(ef.residual() == std::vector<float>{0, 0, 0});
  const std::span<const float> p1 = ef.correct(std::vector<float>{1, 2, 3});
  CHECK(std::vector<float>(p1.begin(), p1.end()) == std::vector<float>{1, 2, 3});
  ef.remember(*c, c->encode(p1, {}).payload, {});  // 3 was sent
  CHECK(ef.residual() == std::vector<float>{1, 2, 0});
  const std::span<const float> p2 = ef.correct(std::vector<float>{0.5f, -1, 1});
  CHECK(std::vector<float>(p2.begin(), p2.end()) == std::vector<float>{1.5f, 1, 1});
}

TEST_CASE("error feedback rejects vectors of another size") {
  ErrorFeedback ef(3);
  CHECK_THROWS_AS(ef.correct(std::vector<float>{1, 2}), CompressError);
  auto c = make_compressor(Config{}, layout({4}));
  CHECK_THROWS_AS(ef.remember(*c, c->encode(std::vector<float>{1, 2, 3, 4}, {}).payload, {}), CompressError);
}

TEST_CASE("error feedback with topk conserves the sum of the gradients") {
  for (const char* scope : {"layer", "global"}) {
    CAPTURE(scope);
    const auto layers = layout({1, 3, 100, 1000});
    const int64_t n = 1104;
    Config cfg;
    cfg.kind = "topk";
    cfg.ratio = 0.02;
    cfg.scope = scope;
    auto c = make_topk(cfg, layers);
    ErrorFeedback ef(n);
    std::vector<double> sum_g(n, 0), sum_decoded(n, 0);
    for (int step = 0; step < 50; ++step) {
      const std::vector<float> g = random_vector(n, 1000 + step);
      const std::span<const float> corrected = ef.correct(g);
      const std::vector<float> p(corrected.begin(), corrected.end());
      const Encoded e = c->encode(p, {});
      const std::vector<float> d = c->decode(e.payload, {});
      ef.remember(*c, e.payload, {});
      for (int64_t i = 0; i < n; ++i) {
        sum_g[i] += g[i];
        sum_decoded[i] += d[i];
        // Each step: residual + decoded == corrected exactly (one of them is 0 or both are p_i).
        CHECK_MESSAGE(ef.residual()[i] + d[i] == p[i], "step " << step << " entry " << i);
      }
    }
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      wrong += std::fabs(sum_decoded[i] + ef.residual()[i] - sum_g[i]) > 1e-4 * (1 + std::fabs(sum_g[i]));
    }
    CHECK(wrong == 0);
    // The residual is not trivially everything: some of it was sent.
    double sent = 0;
    for (double v : sum_decoded) sent += std::fabs(v);
    CHECK(sent > 0);
  }
}

TEST_CASE("topk norm gap on hand-computed vectors") {
  // One layer {3, 4}, k = 1: Top_k = {4}: |5 - 4| / 5.
  CHECK(topk_norm_gap(std::vector<float>{3, 4}, layout({2}), 0.5, "layer") == doctest::Approx(0.2));
  CHECK(topk_norm_gap(std::vector<float>{3, -4}, layout({2}), 0.5, "global") == doctest::Approx(0.2));
  // Layers {3, 4} and {0, 1}, ratio 0.5: per layer k = 1 keeps 4 and 1; globally k = 2 keeps 4, 3.
  const std::vector<float> g = {3, 4, 0, -1};
  const double norm = std::sqrt(26.0);
  CHECK(topk_norm_gap(g, layout({2, 2}), 0.5, "layer") == doctest::Approx((norm - std::sqrt(17.0)) / norm));
  CHECK(topk_norm_gap(g, layout({2, 2}), 0.5, "global") == doctest::Approx((norm - 5.0) / norm));
  // Tiny layers keep at least one entry each: three layers of one entry lose nothing; globally
  // k = max(1, floor(0.1 x 3)) = 1 keeps the 2 of {1, 2, 2}: (3 - 2) / 3.
  const std::vector<float> tiny = {1, 2, 2};
  CHECK(topk_norm_gap(tiny, layout({1, 1, 1}), 0.1, "layer") == 0.0);
  CHECK(topk_norm_gap(tiny, layout({1, 1, 1}), 0.1, "global") == doctest::Approx(1.0 / 3));
  // Everything kept, and the zero vector.
  CHECK(topk_norm_gap(g, layout({2, 2}), 1.0, "layer") == 0.0);
  CHECK(topk_norm_gap(std::vector<float>{0, 0, 0, 0}, layout({2, 2}), 0.5, "layer") == 0.0);
  // Norms in double: 1e20^2 overflows float.
  CHECK(topk_norm_gap(std::vector<float>{3e20f, 4e20f}, layout({2}), 0.5, "layer") == doctest::Approx(0.2));
}

TEST_CASE("topk norm gap validates its arguments") {
  const std::vector<float> g = {3, 4};
  CHECK_THROWS_AS(topk_norm_gap(g, layout({2}), 0.0, "layer"), CompressError);
  CHECK_THROWS_AS(topk_norm_gap(g, layout({2}), 1.5, "layer"), CompressError);
  CHECK_THROWS_AS(topk_norm_gap(g, layout({2}), 0.5, "row"), CompressError);
  CHECK_THROWS_AS(topk_norm_gap(g, layout({3}), 0.5, "layer"), CompressError);
}

TEST_CASE("all_finite finds a NaN or an infinity anywhere") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(all_finite(std::vector<float>{}));
  CHECK(all_finite(std::vector<float>{1, -0.0f, 1e-45f, std::numeric_limits<float>::max(), -3e38f}));
  for (const float bad : {inf, -inf, nan, -nan}) {
    std::vector<float> x(37, 1.0f);
    x[29] = bad;
    CHECK_FALSE(all_finite(x));
  }
}
