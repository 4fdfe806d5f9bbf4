// PowerSGD: exact wire sizes, recovery of low-rank matrices, error decreasing with the rank,
// warm start across calls, seeded determinism, decoding from the payload alone, error-feedback
// conservation and rejection of malformed payloads.
#include <doctest/doctest.h>

#include <algorithm>
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

Config with_rank(int64_t rank) {
  Config c;
  c.kind = "powersgd";
  c.rank = rank;
  return c;
}

// `count` orthonormal vectors of length `dim` (Gram-Schmidt of random ones), row k = vector k.
std::vector<std::vector<double>> orthonormal(int64_t count, int64_t dim, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<std::vector<double>> out;
  while (static_cast<int64_t>(out.size()) < count) {
    std::vector<double> v(static_cast<size_t>(dim));
    for (double& x : v) x = normal(rng);
    for (int pass = 0; pass < 2; ++pass) {
      for (const auto& u : out) {
        const double dot = std::inner_product(u.begin(), u.end(), v.begin(), 0.0);
        for (size_t i = 0; i < v.size(); ++i) v[i] -= dot * u[i];
      }
    }
    const double norm = std::sqrt(std::inner_product(v.begin(), v.end(), v.begin(), 0.0));
    for (double& x : v) x /= norm;
    out.push_back(v);
  }
  return out;
}

// m x n row-major matrix with the given singular values.
std::vector<float> with_spectrum(int64_t m, int64_t n, const std::vector<double>& sigma, uint64_t seed) {
  const auto u = orthonormal(static_cast<int64_t>(sigma.size()), m, seed);
  const auto v = orthonormal(static_cast<int64_t>(sigma.size()), n, seed + 1);
  std::vector<float> out(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (size_t k = 0; k < sigma.size(); ++k) s += sigma[k] * u[k][i] * v[k][j];
      out[static_cast<size_t>(i * n + j)] = static_cast<float>(s);
    }
  }
  return out;
}

double norm(std::span<const float> v) {
  double s = 0;
  for (float x : v) s += static_cast<double>(x) * x;
  return std::sqrt(s);
}

double distance(std::span<const float> a, std::span<const float> b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
  return std::sqrt(s);
}

// Encodes `v` `calls` times (warm-started) and returns the last decode.
std::vector<float> round_trip(Compressor& c, const std::vector<float>& v, int calls, uint64_t seed = 1) {
  std::vector<float> d;
  for (int step = 0; step < calls; ++step) d = c.decode(c.encode(v, {seed, step}).payload, {seed, step});
  return d;
}

}  // namespace

TEST_CASE("powersgd: payload is 4 r'(m + n) per matrix layer and 4 n per other layer") {
  const std::vector<std::vector<std::vector<int64_t>>> layouts = {
      {{1}},    {{3}},    {{9}},    {{8, 4}, {8}},         {{16, 8}, {16}, {4, 2, 3, 3}, {4}},
      {{2, 7}}, {{7, 2}}, {{1, 5}}, {{3, 3}, {1}, {1, 1}}, {{128, 784}, {128}}};
  for (int64_t r : {1, 2, 4, 8}) {
    for (const auto& shapes : layouts) {
      const auto layers = layout(shapes);
      int64_t expected = 0;
      for (const auto& l : layers) {
        if (l.shape.size() >= 2) {
          const int64_t m = l.shape[0], n = l.numel / m;
          expected += 4 * std::min({r, m, n}) * (m + n);
        } else {
          expected += 4 * l.numel;
        }
      }
      auto c = make_powersgd(with_rank(r), layers);
      const auto v = random_vector(static_cast<size_t>(total(layers)), 1);
      const auto encoded = c->encode(v, {3, 0});
      CHECK(static_cast<int64_t>(encoded.payload.size()) == expected);
      CHECK(encoded.indices.empty());
      CHECK(c->decode(encoded.payload, {3, 0}).size() == v.size());
    }
  }
}

TEST_CASE("powersgd: a rank-1 matrix is recovered with rank 1") {
  const auto layers = layout({{12, 20}});
  const auto m = with_spectrum(12, 20, {3.0}, 5);
  auto c = make_powersgd(with_rank(1), layers);
  const auto d = round_trip(*c, m, 2);
  CHECK(distance(d, m) <= 1e-5 * norm(m));
}

TEST_CASE("powersgd: approximation error decreases with the rank") {
  const int64_t rows = 16, cols = 24;
  std::vector<double> sigma;
  for (int k = 0; k < 16; ++k) sigma.push_back(std::ldexp(8.0, -k));
  const auto m = with_spectrum(rows, cols, sigma, 7);
  const auto layers = layout({{rows, cols}});
  double previous = std::numeric_limits<double>::infinity();
  for (int64_t r : {1, 2, 3, 4, 8}) {
    auto c = make_powersgd(with_rank(r), layers);
    const double error = distance(round_trip(*c, m, 12), m);
    // After a few warm-started iterations the error reaches the best rank-r one (Eckart-Young).
    double tail = 0;
    for (size_t k = static_cast<size_t>(r); k < sigma.size(); ++k) tail += sigma[k] * sigma[k];
    tail = std::sqrt(tail);
    CHECK(error == doctest::Approx(tail).epsilon(0.01));
    CHECK(error < previous);
    previous = error;
  }
}

TEST_CASE("powersgd: rank at least min(m, n) reproduces the matrix") {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{2, 7}, {7, 2}, {1, 5}, {5, 1}, {3, 3}, {2, 2, 3}}) {
    const auto layers = layout({shape, {2}});
    const auto v = random_vector(static_cast<size_t>(total(layers)), 9);
    auto c = make_powersgd(with_rank(4), layers);
    const auto d = c->decode(c->encode(v, {1, 0}).payload, {1, 0});
    CHECK(distance(d, v) <= 1e-5 * norm(v));
  }
}

TEST_CASE("powersgd: the warm start carries over between calls") {
  const auto layers = layout({{16, 24}, {16}});
  const auto v = random_vector(static_cast<size_t>(total(layers)), 11);
  auto c = make_powersgd(with_rank(2), layers);
  const auto first = c->encode(v, {4, 0}).payload;
  const auto second = c->encode(v, {4, 0}).payload;
  CHECK(first != second);  // same input and context: only the kept Q differs
  const double error_first = distance(c->decode(first, {4, 0}), v);
  for (int i = 0; i < 4; ++i) c->encode(v, {4, 0});
  const double error_later = distance(c->decode(c->encode(v, {4, 0}).payload, {4, 0}), v);
  CHECK(error_later < error_first);  // the power iteration converges on a fixed matrix
  // A fresh sender with the same seed starts again from the same Q.
  CHECK(make_powersgd(with_rank(2), layers)->encode(v, {4, 0}).payload == first);
}

TEST_CASE("powersgd: same seed gives identical payloads and another seed differs") {
  const auto layers = layout({{10, 6}, {10}, {4, 3}});
  const auto v = random_vector(static_cast<size_t>(total(layers)), 13);
  auto a = make_powersgd(with_rank(2), layers), b = make_powersgd(with_rank(2), layers),
       other = make_powersgd(with_rank(2), layers);
  for (int step = 0; step < 3; ++step) {
    const auto payload = a->encode(v, {21, step}).payload;
    CHECK(b->encode(v, {21, step}).payload == payload);
    CHECK(other->encode(v, {22, step}).payload != payload);
  }
}

TEST_CASE("powersgd: decoding needs only the payload") {
  const auto layers = layout({{10, 6}, {10}});
  const auto v = random_vector(static_cast<size_t>(total(layers)), 15);
  auto sender = make_powersgd(with_rank(3), layers);
  sender->encode(v, {1, 0});
  const auto payload = sender->encode(v, {1, 1}).payload;
  const auto receiver = make_powersgd(with_rank(3), layers);  // never encoded anything
  CHECK(receiver->decode(payload, {99, 42}) == sender->decode(payload, {1, 1}));
}

TEST_CASE("powersgd: 1-D layers travel exactly") {
  const auto layers = layout({{5}, {3, 4}, {1}, {3}});
  const auto v = random_vector(static_cast<size_t>(total(layers)), 17);
  auto c = make_powersgd(with_rank(1), layers);
  const auto d = c->decode(c->encode(v, {}).payload, {});
  for (const auto& l : layers) {
    if (l.shape.size() != 1) continue;
    for (int64_t i = l.offset; i < l.offset + l.numel; ++i) CHECK(d[i] == v[i]);
  }
}

TEST_CASE("powersgd: zero and rank-deficient matrices do not stall the warm start") {
  const int64_t rows = 6, cols = 8;
  const auto layers = layout({{rows, cols}});
  auto c = make_powersgd(with_rank(3), layers);
  const std::vector<float> zero(static_cast<size_t>(rows * cols), 0.0f);
  CHECK(round_trip(*c, zero, 2) == zero);
  const auto rank1 = with_spectrum(rows, cols, {2.0}, 19);
  CHECK(distance(round_trip(*c, rank1, 2), rank1) <= 1e-5 * norm(rank1));
  // Directions that were dead for the matrices above come back for a full-rank one.
  const std::vector<double> sigma{4.0, 2.0, 1.0, 0.1, 0.05, 0.02};
  const auto full = with_spectrum(rows, cols, sigma, 23);
  const double tail = std::sqrt(0.1 * 0.1 + 0.05 * 0.05 + 0.02 * 0.02);
  CHECK(distance(round_trip(*c, full, 10), full) == doctest::Approx(tail).epsilon(0.01));
}

TEST_CASE("powersgd with error feedback: decoded sum plus residual equals the inputs' sum") {
  const auto layers = layout({{8, 5}, {8}});
  const size_t n = static_cast<size_t>(total(layers));
  auto c = make_powersgd(with_rank(1), layers);
  compress_test::check_feedback_conservation(*c, n, 20, 200);
}

TEST_CASE("powersgd: rank below 1 and bad layouts are rejected") {
  const auto layers = layout({{3, 4}});
  CHECK_THROWS_WITH_AS(make_powersgd(with_rank(0), layers), "compression.rank: must be >= 1, got 0", CompressError);
  CHECK_THROWS_AS(make_powersgd(with_rank(-1), layers), CompressError);
  CHECK_NOTHROW(make_powersgd(with_rank(1), layers));
  const std::vector<Layer> odd{{"w", {3, 4}, 0, 10}};
  CHECK_THROWS_AS(make_powersgd(with_rank(1), odd), CompressError);
  auto gap = layout({{3}, {3, 4}});
  gap[1].offset = 4;  // layers must tile the vector in order
  CHECK_THROWS_AS(make_powersgd(with_rank(1), gap), CompressError);
}

TEST_CASE("powersgd: malformed payloads and bad updates are rejected") {
  const auto layers = layout({{4, 5}, {4}});
  const auto v = random_vector(static_cast<size_t>(total(layers)), 25);
  auto c = make_powersgd(with_rank(2), layers);
  const auto payload = c->encode(v, {}).payload;
  CHECK_NOTHROW(c->decode(payload, {}));
  CHECK_THROWS_AS(c->decode(std::span(payload).first(payload.size() - 1), {}), CompressError);
  CHECK_THROWS_AS(c->decode(std::span<const uint8_t>(), {}), CompressError);
  auto longer = payload;
  longer.push_back(0);
  CHECK_THROWS_AS(c->decode(longer, {}), CompressError);
  auto bad = payload;
  const float nan = std::nanf("");
  std::memcpy(bad.data() + 8, &nan, 4);
  CHECK_THROWS_AS(c->decode(bad, {}), CompressError);

  CHECK_THROWS_AS(c->encode(std::vector<float>(v.size() + 1, 0.0f), {}), CompressError);
  auto inf = v;
  inf[3] = std::numeric_limits<float>::infinity();
  CHECK_THROWS_AS(c->encode(inf, {}), CompressError);
}

// Found by fuzz/compress_fuzz: finite factors whose product is beyond fp32 decoded to inf.
TEST_CASE("powersgd: factors whose product overflows fp32 are rejected") {
  const auto layers = layout({{2, 2}});
  auto c = make_powersgd(with_rank(1), layers);
  std::vector<uint8_t> payload;
  for (const float v : {0x1p100f, 1.0f, 0x1p100f, 1.0f}) {  // P = (2^100, 1), Q = (2^100, 1): M(0, 0) = 2^200
    uint8_t bytes[4];
    std::memcpy(bytes, &v, 4);
    payload.insert(payload.end(), bytes, bytes + 4);
  }
  CHECK_THROWS_WITH_AS(
      c->decode(payload, {}),
      "compressed payload: powersgd factors of layer \"layer0\" rebuild an entry beyond fp32 (1.6069380442589903e+60)",
      CompressError);
  std::memcpy(payload.data(), &payload[4], 4);  // P = (1, 1): every entry is finite
  CHECK(c->decode(payload, {}) == std::vector<float>{0x1p100f, 1.0f, 0x1p100f, 1.0f});
}
