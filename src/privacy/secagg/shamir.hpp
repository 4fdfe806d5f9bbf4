// Shamir's t-of-n secret sharing of 32-byte secrets (Bonawitz et al. 2017, section 3, "Secret
// sharing"): the secret is cut into five chunks of at most 7 bytes (56 bits), each the constant term
// of its own random polynomial of degree t - 1 over the prime field of p = 2^61 - 1 (a Mersenne prime:
// products fit unsigned __int128 and reduce with shifts). Holder v gets the values at x = v + 1, so id
// 0 is a valid holder and no holder sits at x = 0, where the secret is. Any t shares give the secret
// back by Lagrange interpolation at 0; fewer are an error.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "privacy/secagg/prg.hpp"
#include "privacy/secagg/primitives.hpp"

namespace edgetrain::privacy::secagg {

inline constexpr uint64_t kShamirPrime = (uint64_t{1} << 61) - 1;
inline constexpr size_t kShamirChunks = 5;  // ceil(32 bytes / 7 bytes)
// A share on the wire: its five field elements as 8-byte words (the holder is known from context).
inline constexpr size_t kShareBytes = kShamirChunks * 8;

struct Share {
  uint32_t holder = 0;
  std::array<uint64_t, kShamirChunks> y{};
  bool operator==(const Share&) const = default;
};

// One share per holder (distinct ids), of a polynomial of degree t - 1 whose coefficients come from
// `coefficients`. Throws when t is 0 or above the number of holders, or holders repeat.
std::vector<Share> share_secret(const Key& secret, uint32_t threshold, std::span<const uint32_t> holders,
                                Prg& coefficients);

// The secret from the first t shares. Throws std::invalid_argument with fewer than t shares, repeated
// holders, values outside the field, or shares that interpolate to no 32-byte secret (they do not
// belong together).
Key reconstruct_secret(std::span<const Share> shares, uint32_t threshold);

}  // namespace edgetrain::privacy::secagg
