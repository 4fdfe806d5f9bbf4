// The Gaussian noise of differential privacy, drawn from a counter-based stream: element k's draw
// depends on the seed and k alone, so the noise a device or an aggregator adds is the same whatever
// thread adds it and whatever was drawn before (docs/explanation/determinism.md). Box-Muller on
// SplitMix64 words: 53-bit uniforms, two normals per pair of words.
#pragma once

#include <cstdint>
#include <span>

namespace edgetrain::privacy {

// Adds N(0, stddev^2) to each element of `v`, from the stream of `seed`.
void add_gaussian_noise(std::span<float> v, double stddev, uint64_t seed);

}  // namespace edgetrain::privacy
