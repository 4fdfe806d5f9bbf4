// Splitting a whole number of devices by shares so the parts are exact and sum to the whole:
// the largest-remainder (Hamilton) method, ties to the earlier share, no randomness.
#pragma once

#include <cstdint>
#include <vector>

namespace edgetrain::fleet {

// Parts of `total` in proportion to `weights` (>= 0, not all 0): each part is the floor of its
// quota or one more, the extra units going to the largest fractional remainders.
std::vector<int64_t> exact_split(int64_t total, const std::vector<double>& weights);

}  // namespace edgetrain::fleet
