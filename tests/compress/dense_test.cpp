// Dense compressors: none round-trips bit for bit, fp16 rounds every binary16 boundary to the
// nearest even value (checked exhaustively against an independent reference), overflows to
// infinity and keeps subnormals; exact payload sizes; malformed payloads and layouts fail.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
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

// Value of a finite binary16 pattern (sign ignored), computed from the definition. The
// pattern 0x7c00 (infinity) yields 2^16, the value the next step would have, for midpoints.
double half_value(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  if (exponent == 0) return std::ldexp(static_cast<double>(mantissa), -24);
  return std::ldexp(static_cast<double>(1024 + mantissa), exponent - 25);
}

std::vector<uint16_t> halves_of(const std::vector<uint8_t>& payload) {
  std::vector<uint16_t> out(payload.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<uint16_t>(payload[2 * i] | (payload[2 * i + 1] << 8));
  return out;
}

const std::vector<std::vector<int64_t>> kLayouts = {{1}, {3}, {1, 3, 1}, {10, 7, 64, 1, 1000}, {5000}};

}  // namespace

TEST_CASE("none round trip is bit exact and costs 4 bytes per entry") {
  for (const auto& sizes : kLayouts) {
    const auto layers = layout(sizes);
    auto c = make_none(Config{}, layers);
    std::vector<float> x = random_vector(total(layers), 7);
    x[0] = std::numeric_limits<float>::infinity();
    if (x.size() > 1) x[1] = std::numeric_limits<float>::denorm_min();
    if (x.size() > 2) x[2] = -0.0f;
    const Encoded e = c->encode(x, {});
    CHECK(e.payload.size() == 4 * x.size());
    CHECK(e.indices.empty());
    const std::vector<float> y = c->decode(e.payload, {});
    REQUIRE(y.size() == x.size());
    CHECK(std::memcmp(x.data(), y.data(), 4 * x.size()) == 0);
  }
}

TEST_CASE("fp16 payload is 2 bytes per entry") {
  for (const auto& sizes : kLayouts) {
    const auto layers = layout(sizes);
    auto c = make_fp16(Config{}, layers);
    const std::vector<float> x = random_vector(total(layers), 11);
    const Encoded e = c->encode(x, {});
    CHECK(e.payload.size() == 2 * x.size());
    CHECK(c->decode(e.payload, {}).size() == x.size());
  }
}

TEST_CASE("fp16 matches every binary16 value and rounds midpoints to even") {
  // For each finite half h: its exact value, the midpoint to the next pattern, and the floats
  // just below and above that midpoint, with both signs.
  std::vector<float> inputs;
  std::vector<uint16_t> expected;
  for (uint32_t h = 0; h <= 0x7bff; ++h) {
    const double value = half_value(static_cast<uint16_t>(h));
    const float mid = static_cast<float>((value + half_value(static_cast<uint16_t>(h + 1))) / 2);
    REQUIRE(static_cast<double>(mid) == (value + half_value(static_cast<uint16_t>(h + 1))) / 2);  // exact in float
    const uint16_t even = (h & 1) ? static_cast<uint16_t>(h + 1) : static_cast<uint16_t>(h);
    const float cases[] = {static_cast<float>(value), mid, std::nextafter(mid, 0.0f),
                           std::nextafter(mid, std::numeric_limits<float>::infinity())};
    const uint16_t results[] = {static_cast<uint16_t>(h), even, static_cast<uint16_t>(h), static_cast<uint16_t>(h + 1)};
    for (int i = 0; i < 4; ++i) {
      inputs.push_back(cases[i]);
      expected.push_back(results[i]);
      inputs.push_back(-cases[i]);
      expected.push_back(static_cast<uint16_t>(results[i] | 0x8000));
    }
  }
  const auto layers = layout({static_cast<int64_t>(inputs.size())});
  auto c = make_fp16(Config{}, layers);
  const Encoded e = c->encode(inputs, {});
  const std::vector<uint16_t> got = halves_of(e.payload);
  REQUIRE(got.size() == expected.size());
  int64_t wrong = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != expected[i]) {
      if (wrong++ < 5) FAIL_CHECK("input " << inputs[i] << " gave " << got[i] << ", expected " << expected[i]);
    }
  }
  CHECK(wrong == 0);
  // Decoding gives each pattern's exact value back.
  const std::vector<float> decoded = c->decode(e.payload, {});
  for (size_t i = 0; i < decoded.size(); i += 8) {
    CHECK(decoded[i] == inputs[i]);
    CHECK(decoded[i + 1] == inputs[i + 1]);
    CHECK(std::signbit(decoded[i + 1]));
  }
}

TEST_CASE("fp16 keeps large and small values within half precision") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {3.14159265f, -1000.7f, 1e-3f,   65504.0f, 65519.0f, 65520.0f, 70000.0f,
                                -1e6f,       1e-5f,    6.1e-5f, 5.96e-8f, 3e-8f,    2.9e-8f,  1e-9f,
                                -inf,        0.0f,     -0.0f,   1e30f,    -6.0e-8f, 12345.6f};
  const auto layers = layout({static_cast<int64_t>(x.size())});
  auto c = make_fp16(Config{}, layers);
  const std::vector<float> y = c->decode(c->encode(x, {}).payload, {});
  REQUIRE(y.size() == x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    CAPTURE(x[i]);
    CAPTURE(y[i]);
    const float a = std::fabs(x[i]);
    if (a >= 65520.0f) {
      CHECK(std::isinf(y[i]));
      CHECK(std::signbit(y[i]) == std::signbit(x[i]));
    } else if (a >= std::ldexp(1.0f, -14)) {
      CHECK(std::fabs(y[i] - x[i]) <= a * std::ldexp(1.0f, -11));  // half an ulp of 10 mantissa bits
    } else {
      CHECK(std::fabs(y[i] - x[i]) <= std::ldexp(1.0f, -25));  // half the subnormal step
    }
  }
  CHECK(y[3] == 65504.0f);
  CHECK(y[4] == 65504.0f);
  CHECK(std::isinf(y[5]));
  CHECK(y[10] == std::ldexp(1.0f, -24));  // smallest subnormal
  CHECK(y[11] == std::ldexp(1.0f, -24));  // above half of it: rounds up
  CHECK(y[12] == 0.0f);                   // below half of it: rounds to zero
  CHECK(y[13] == 0.0f);
  CHECK(std::signbit(y[16]));
}

TEST_CASE("fp16 carries infinity and NaN") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {inf, -inf, std::numeric_limits<float>::quiet_NaN()};
  auto c = make_fp16(Config{}, layout({3}));
  const std::vector<float> y = c->decode(c->encode(x, {}).payload, {});
  CHECK(y[0] == inf);
  CHECK(y[1] == -inf);
  CHECK(std::isnan(y[2]));
}

TEST_CASE("dense decoders reject a payload of the wrong length") {
  const auto layers = layout({3, 4});
  for (auto* make : {&make_none, &make_fp16}) {
    auto c = make(Config{}, layers);
    std::vector<uint8_t> payload = c->encode(random_vector(7, 3), {}).payload;
    CHECK_NOTHROW(c->decode(payload, {}));
    payload.push_back(0);
    CHECK_THROWS_AS(c->decode(payload, {}), CompressError);
    payload.resize(payload.size() - 2);
    CHECK_THROWS_AS(c->decode(payload, {}), CompressError);
    CHECK_THROWS_AS(c->decode(std::vector<uint8_t>{}, {}), CompressError);
  }
}

TEST_CASE("dense encoders reject an update that does not match the layers") {
  auto c = make_none(Config{}, layout({3, 4}));
  CHECK_THROWS_AS(c->encode(random_vector(6, 1), {}), CompressError);
  CHECK_THROWS_AS(c->encode(random_vector(8, 1), {}), CompressError);
}

TEST_CASE("layers must tile the vector in order") {
  std::vector<Layer> gap = layout({3, 4});
  gap[1].offset = 4;
  CHECK_THROWS_AS(make_none(Config{}, gap), CompressError);
  CHECK_THROWS_AS(make_fp16(Config{}, gap), CompressError);
  std::vector<Layer> overlap = layout({3, 4});
  overlap[1].offset = 2;
  CHECK_THROWS_AS(make_none(Config{}, overlap), CompressError);
  CHECK_NOTHROW(make_none(Config{}, layout({3, 0, 4})));
}
