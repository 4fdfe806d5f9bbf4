// Quantising compressors (qsgd, terngrad, signsgd, onebit): exact wire sizes against the
// docs/how-to/compression.md formulas, error bounds, unbiasedness, seeded determinism, error-feedback conservation
// and rejection of malformed payloads.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "compress/compressor.hpp"
#include "compress/family.hpp"
#include "helpers.hpp"

using namespace edgetrain::compress;

namespace {

using compress_test::random_vector;
using compress_test::total;
const auto layout = compress_test::layout_of_shapes;

Config with_levels(int64_t levels) {
  Config c;
  c.kind = "qsgd";
  c.levels = levels;
  return c;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// ceil(log2(s + 1)), computed independently of wire.hpp's bits_for.
int64_t level_bits(int64_t s) { return static_cast<int64_t>(std::ceil(std::log2(static_cast<double>(s + 1)) - 1e-12)); }

const std::vector<std::vector<std::vector<int64_t>>> kLayouts = {
    {{1}}, {{3}}, {{9}}, {{1}, {3}, {9}}, {{4, 5}, {5}}, {{16, 8}, {16}, {3, 2, 3, 3}, {1}}, {{0}, {7}}};

double layer_norm(std::span<const float> v) {
  double s = 0;
  for (float x : v) s += static_cast<double>(x) * x;
  return std::sqrt(s);
}

}  // namespace

TEST_CASE("qsgd: payload size is 4 + ceil(n (1 + ceil(log2(s+1))) / 8) per layer") {
  for (int64_t s : {1, 2, 3, 4, 7, 8, 15, 16, 255, 256}) {
    for (const auto& shapes : kLayouts) {
      const auto layers = layout(shapes);
      auto c = make_qsgd(with_levels(s), layers);
      int64_t expected = 0;
      for (const auto& l : layers) expected += 4 + ceil_div(l.numel * (1 + level_bits(s)), 8);
      const auto v = random_vector(static_cast<size_t>(total(layers)), 1);
      CHECK(static_cast<int64_t>(c->encode(v, {7, 0}).payload.size()) == expected);
    }
  }
}

TEST_CASE("terngrad, signsgd, onebit: payload sizes match the per-layer formulas") {
  for (const auto& shapes : kLayouts) {
    const auto layers = layout(shapes);
    int64_t tern = 0, sign = 0, one = 0;
    for (const auto& l : layers) {
      tern += 4 + ceil_div(2 * l.numel, 8);
      sign += 4 + ceil_div(l.numel, 8);
      one += 8 + ceil_div(l.numel, 8);
    }
    const auto v = random_vector(static_cast<size_t>(total(layers)), 2);
    CHECK(static_cast<int64_t>(make_terngrad({}, layers)->encode(v, {1, 3}).payload.size()) == tern);
    CHECK(static_cast<int64_t>(make_signsgd({}, layers)->encode(v, {1, 3}).payload.size()) == sign);
    CHECK(static_cast<int64_t>(make_onebit({}, layers)->encode(v, {1, 3}).payload.size()) == one);
  }
}

TEST_CASE("qsgd: per-element error is at most norm over s and values sit on the level grid") {
  const auto layers = layout({{1}, {3}, {9}, {20, 10}});
  const auto v = random_vector(static_cast<size_t>(total(layers)), 3);
  for (int64_t s : {1, 2, 4, 16, 1000}) {
    auto c = make_qsgd(with_levels(s), layers);
    const auto encoded = c->encode(v, {11, 5});
    CHECK(encoded.indices.empty());
    const auto d = c->decode(encoded.payload, {11, 5});
    REQUIRE(d.size() == v.size());
    for (const auto& l : layers) {
      const std::span<const float> vl(v.data() + l.offset, static_cast<size_t>(l.numel));
      const double norm = layer_norm(vl);
      for (int64_t i = l.offset; i < l.offset + l.numel; ++i) {
        CHECK(std::fabs(d[i] - v[i]) <= norm / s * (1 + 1e-5));
        const double level = std::fabs(d[i]) * s / norm;
        CHECK(level == doctest::Approx(std::round(level)).epsilon(1e-4));
        if (d[i] != 0) CHECK((d[i] < 0) == (v[i] < 0));
      }
    }
  }
}

TEST_CASE("qsgd: unbiased, the mean of many decodes approaches the input") {
  const auto layers = layout({{3}, {5, 4}});
  const auto v = random_vector(static_cast<size_t>(total(layers)), 4);
  const int64_t s = 2;
  auto c = make_qsgd(with_levels(s), layers);
  const int steps = 4000;
  std::vector<double> mean(v.size(), 0.0);
  for (int step = 0; step < steps; ++step) {
    const auto d = c->decode(c->encode(v, {5, step}).payload, {5, step});
    for (size_t i = 0; i < v.size(); ++i) mean[i] += d[i] / steps;
  }
  for (const auto& l : layers) {
    const double norm = layer_norm(std::span<const float>(v.data() + l.offset, static_cast<size_t>(l.numel)));
    // One decode has standard deviation <= (norm / s) / 2: allow 5 standard errors of the mean.
    const double tolerance = 5 * norm / s / 2 / std::sqrt(static_cast<double>(steps));
    for (int64_t i = l.offset; i < l.offset + l.numel; ++i) CHECK(std::fabs(mean[i] - v[i]) <= tolerance);
  }
}

TEST_CASE("qsgd and terngrad: same seed and step give identical payloads") {
  const auto layers = layout({{9}, {6, 5}});
  const auto v = random_vector(static_cast<size_t>(total(layers)), 5);
  for (const auto& make : {std::function(make_qsgd), std::function(make_terngrad)}) {
    auto a = make(with_levels(4), layers), b = make(with_levels(4), layers);
    const auto first = a->encode(v, {42, 17}).payload;
    CHECK(a->encode(v, {42, 17}).payload == first);  // no hidden state
    CHECK(b->encode(v, {42, 17}).payload == first);  // another instance, same stream
  }
}

TEST_CASE("qsgd and terngrad: different steps or seeds give different roundings") {
  const auto layers = layout({{9}, {6, 5}});
  const auto v = random_vector(static_cast<size_t>(total(layers)), 6);
  for (const auto& make : {std::function(make_qsgd), std::function(make_terngrad)}) {
    auto c = make(with_levels(4), layers);
    const auto base = c->encode(v, {42, 17}).payload;
    CHECK(c->encode(v, {42, 18}).payload != base);
    CHECK(c->encode(v, {43, 17}).payload != base);
  }
}

TEST_CASE("qsgd: levels below 1 are rejected naming the key") {
  const auto layers = layout({{3}});
  CHECK_THROWS_WITH_AS(make_qsgd(with_levels(0), layers), "compression.levels: must be >= 1, got 0", CompressError);
  CHECK_THROWS_AS(make_qsgd(with_levels(-3), layers), CompressError);
  CHECK_NOTHROW(make_qsgd(with_levels(1), layers));
  // A setting the codec cannot work with is a ConfigError: an input error, naming its key.
  CHECK_THROWS_WITH_AS(make_qsgd(with_levels(int64_t{1} << 62), layers),
                       "compression.levels: must be <= 2147483648, got 4611686018427387904", ConfigError);
  CHECK_THROWS_AS(make_compressor(Config{.kind = "nope"}, layers), ConfigError);
  try {
    make_qsgd(with_levels(0), layers);
  } catch (const ConfigError& e) {
    CHECK(e.setting() == "levels");
    CHECK(ConfigError(e.setting(), e.detail(), "compression.downlink").what() ==
          std::string("compression.downlink.levels: must be >= 1, got 0"));
  }
}

TEST_CASE("terngrad: values are in -s_t, 0, s_t with s_t the largest magnitude") {
  const auto layers = layout({{1}, {3}, {9}, {7, 7}});
  const auto v = random_vector(static_cast<size_t>(total(layers)), 7);
  auto c = make_terngrad({}, layers);
  for (int step = 0; step < 20; ++step) {
    const auto d = c->decode(c->encode(v, {3, step}).payload, {3, step});
    for (const auto& l : layers) {
      float scale = 0;
      for (int64_t i = l.offset; i < l.offset + l.numel; ++i) scale = std::max(scale, std::fabs(v[i]));
      for (int64_t i = l.offset; i < l.offset + l.numel; ++i) {
        CHECK((d[i] == 0 || d[i] == scale || d[i] == -scale));
        if (d[i] != 0) CHECK((d[i] < 0) == (v[i] < 0));
        if (std::fabs(v[i]) == scale) CHECK(std::fabs(d[i]) == scale);  // P(+-1) = 1
      }
    }
  }
}

TEST_CASE("terngrad: unbiased on average") {
  const auto layers = layout({{4}, {3, 5}});
  const auto v = random_vector(static_cast<size_t>(total(layers)), 8);
  auto c = make_terngrad({}, layers);
  const int steps = 4000;
  std::vector<double> mean(v.size(), 0.0);
  for (int step = 0; step < steps; ++step) {
    const auto d = c->decode(c->encode(v, {9, step}).payload, {9, step});
    for (size_t i = 0; i < v.size(); ++i) mean[i] += d[i] / steps;
  }
  for (const auto& l : layers) {
    float scale = 0;
    for (int64_t i = l.offset; i < l.offset + l.numel; ++i) scale = std::max(scale, std::fabs(v[i]));
    // One decode has standard deviation <= s_t / 2: allow 5 standard errors of the mean.
    const double tolerance = 5 * scale / 2 / std::sqrt(static_cast<double>(steps));
    for (int64_t i = l.offset; i < l.offset + l.numel; ++i) CHECK(std::fabs(mean[i] - v[i]) <= tolerance);
  }
}

TEST_CASE("signsgd: decode is the mean magnitude times the sign, with sign of 0 positive") {
  const auto layers = layout({{1}, {3}, {2, 2}});
  const std::vector<float> v{-2.0f, 1.0f, -0.5f, 0.0f, 3.0f, -1.0f, 0.0f, -4.0f};
  auto c = make_signsgd({}, layers);
  const auto d = c->decode(c->encode(v, {}).payload, {});
  const std::vector<float> expected{-2.0f, 0.5f, -0.5f, 0.5f, 2.0f, -2.0f, 2.0f, -2.0f};
  CHECK(d == expected);

  const auto w = random_vector(100, 9);
  const auto big = layout({{10, 10}});
  auto c2 = make_signsgd({}, big);
  const auto d2 = c2->decode(c2->encode(w, {}).payload, {});
  double l1 = 0;
  for (float x : w) l1 += std::fabs(x);
  const auto scale = static_cast<float>(l1 / 100);
  for (size_t i = 0; i < w.size(); ++i) CHECK(d2[i] == (w[i] >= 0 ? scale : -scale));
}

TEST_CASE("onebit: decode is the mean of each element's sign group") {
  const auto layers = layout({{4}, {3}, {1}});
  const std::vector<float> v{1.0f, -2.0f, 3.0f, -4.0f, 0.0f, 2.0f, 7.0f, -1.5f};
  auto c = make_onebit({}, layers);
  const auto d = c->decode(c->encode(v, {}).payload, {});
  // layer 0: non-negative {1, 3} -> 2, negative {-2, -4} -> -3; layer 1: all >= 0 -> 3;
  // layer 2: only negative -> -1.5
  const std::vector<float> expected{2.0f, -3.0f, 2.0f, -3.0f, 3.0f, 3.0f, 3.0f, -1.5f};
  CHECK(d == expected);

  const auto w = random_vector(60, 10);
  const auto big = layout({{6, 10}});
  auto c2 = make_onebit({}, big);
  const auto d2 = c2->decode(c2->encode(w, {}).payload, {});
  double pos = 0, neg = 0;
  int npos = 0;
  for (float x : w) {
    if (x >= 0) {
      pos += x;
      ++npos;
    } else {
      neg += x;
    }
  }
  const auto pos_mean = static_cast<float>(pos / npos), neg_mean = static_cast<float>(neg / (60 - npos));
  for (size_t i = 0; i < w.size(); ++i) CHECK(d2[i] == (w[i] >= 0 ? pos_mean : neg_mean));
}

TEST_CASE("quantisers: a zero update decodes to zero") {
  const auto layers = layout({{1}, {3}, {4, 4}});
  const std::vector<float> zero(static_cast<size_t>(total(layers)), 0.0f);
  for (const auto& make : {std::function(make_qsgd), std::function(make_terngrad), std::function(make_signsgd),
                           std::function(make_onebit)}) {
    auto c = make(with_levels(8), layers);
    CHECK(c->decode(c->encode(zero, {1, 1}).payload, {1, 1}) == zero);
  }
}

TEST_CASE("signsgd with error feedback: decoded sum plus residual equals the inputs' sum") {
  const auto layers = layout({{3}, {5, 4}, {1}});
  const size_t n = static_cast<size_t>(total(layers));
  auto c = make_signsgd({}, layers);
  const ErrorFeedback feedback = compress_test::check_feedback_conservation(*c, n, 30, 100);
  // The residual stays bounded (error feedback does not accumulate what it cannot send).
  for (float e : feedback.residual()) CHECK(std::fabs(e) < 20);
}

TEST_CASE("quantisers: truncated payloads and trailing bytes are rejected") {
  const auto layers = layout({{3}, {9}, {4, 4}});
  const auto v = random_vector(static_cast<size_t>(total(layers)), 11);
  for (const auto& make : {std::function(make_qsgd), std::function(make_terngrad), std::function(make_signsgd),
                           std::function(make_onebit)}) {
    auto c = make(with_levels(5), layers);
    const auto payload = c->encode(v, {2, 2}).payload;
    CHECK_NOTHROW(c->decode(payload, {2, 2}));
    CHECK_THROWS_AS(c->decode(std::span(payload).first(payload.size() - 1), {2, 2}), CompressError);
    CHECK_THROWS_AS(c->decode(std::span<const uint8_t>(), {2, 2}), CompressError);
    auto longer = payload;
    longer.push_back(0);
    CHECK_THROWS_AS(c->decode(longer, {2, 2}), CompressError);
  }
}

TEST_CASE("quantisers: bad values in a payload are rejected") {
  const auto layers = layout({{4}});
  const std::vector<float> v{1.0f, -1.0f, 0.5f, 0.25f};
  const float nan = std::nanf(""), negative = -1.0f;
  auto put_f32 = [](std::vector<uint8_t>& p, size_t at, float x) { std::memcpy(p.data() + at, &x, 4); };

  // qsgd with s = 2: 2 level bits hold 0..3, level 3 is out of range. Element 0 code = sign | level << 1.
  auto qsgd = make_qsgd(with_levels(2), layers);
  auto p = qsgd->encode(v, {}).payload;
  auto bad = p;
  bad[4] = static_cast<uint8_t>((bad[4] & ~0x7u) | (3u << 1));
  CHECK_THROWS_AS(qsgd->decode(bad, {}), CompressError);
  for (float x : {nan, negative}) {
    bad = p;
    put_f32(bad, 0, x);
    CHECK_THROWS_AS(qsgd->decode(bad, {}), CompressError);
  }

  auto tern = make_terngrad({}, layers);
  p = tern->encode(v, {}).payload;
  bad = p;
  bad[4] |= 0x3;  // code 3 is not ternary
  CHECK_THROWS_AS(tern->decode(bad, {}), CompressError);
  bad = p;
  put_f32(bad, 0, negative);
  CHECK_THROWS_AS(tern->decode(bad, {}), CompressError);

  auto sign = make_signsgd({}, layers);
  p = sign->encode(v, {}).payload;
  bad = p;
  put_f32(bad, 0, std::numeric_limits<float>::infinity());
  CHECK_THROWS_AS(sign->decode(bad, {}), CompressError);

  auto one = make_onebit({}, layers);
  p = one->encode(v, {}).payload;
  bad = p;
  put_f32(bad, 0, negative);  // mean of the non-negative group
  CHECK_THROWS_AS(one->decode(bad, {}), CompressError);
  bad = p;
  put_f32(bad, 4, 1.0f);  // mean of the negative group
  CHECK_THROWS_AS(one->decode(bad, {}), CompressError);
}

TEST_CASE("quantisers: wrong update size and non-finite entries are rejected") {
  const auto layers = layout({{3}, {2, 2}});
  for (const auto& make : {std::function(make_qsgd), std::function(make_terngrad), std::function(make_signsgd),
                           std::function(make_onebit)}) {
    auto c = make(with_levels(4), layers);
    CHECK_THROWS_AS(c->encode(std::vector<float>(6, 1.0f), {}), CompressError);
    std::vector<float> v(7, 1.0f);
    v[5] = std::nanf("");
    CHECK_THROWS_AS(c->encode(v, {}), CompressError);
    v[5] = std::numeric_limits<float>::infinity();
    CHECK_THROWS_AS(c->encode(v, {}), CompressError);
    auto gap = layers;
    gap[1].offset = 4;  // layers must tile the vector in order
    CHECK_THROWS_AS(make(with_levels(4), gap), CompressError);
  }
}
