// Helpers shared by the compressor tests: layer layouts, their size, seeded random updates.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "compress/compressor.hpp"

namespace compress_test {

using edgetrain::compress::Layer;

// 1-D layers of the given sizes, tiling the flat vector in order.
inline std::vector<Layer> layout_of_sizes(const std::vector<int64_t>& sizes) {
  std::vector<Layer> layers;
  int64_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    layers.push_back({"l" + std::to_string(i), {sizes[i]}, offset, sizes[i]});
    offset += sizes[i];
  }
  return layers;
}

// Layers of the given shapes (matrices for PowerSGD), tiling the flat vector in order.
inline std::vector<Layer> layout_of_shapes(const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<Layer> layers;
  int64_t offset = 0;
  for (const auto& shape : shapes) {
    const int64_t numel = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
    layers.push_back({"layer" + std::to_string(layers.size()), shape, offset, numel});
    offset += numel;
  }
  return layers;
}

inline int64_t total(const std::vector<Layer>& layers) {
  int64_t n = 0;
  for (const Layer& l : layers) n += l.numel;
  return n;
}

// Standard normal entries, or with `ties` small integers in [-3, 3] (many equal magnitudes).
inline std::vector<float> random_vector(int64_t n, uint64_t seed, bool ties = false) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> small(-3, 3);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = ties ? static_cast<float>(small(rng)) : normal(rng);
  return v;
}

// Runs `steps` updates through `c` with error feedback and returns the feedback memory; checks
// that what was decoded plus the final residual sums to what went in, coordinate by coordinate.
inline edgetrain::compress::ErrorFeedback check_feedback_conservation(edgetrain::compress::Compressor& c, size_t n,
                                                                      int steps, uint64_t seed) {
  edgetrain::compress::ErrorFeedback feedback(n);
  std::vector<double> sent(n, 0.0), inputs(n, 0.0);
  for (int step = 0; step < steps; ++step) {
    const auto g = random_vector(static_cast<int64_t>(n), seed + static_cast<uint64_t>(step));
    const std::span<const float> p = feedback.correct(g);
    const edgetrain::compress::Encoded e = c.encode(p, {1, step});
    const auto d = c.decode(e.payload, {1, step});
    feedback.remember(c, e.payload, {1, step});
    for (size_t i = 0; i < n; ++i) sent[i] += d[i], inputs[i] += g[i];
  }
  for (size_t i = 0; i < n; ++i) CHECK(sent[i] + feedback.residual()[i] == doctest::Approx(inputs[i]).epsilon(1e-4));
  return feedback;
}

}  // namespace compress_test
