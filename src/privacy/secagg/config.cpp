// See config.hpp.
#include "privacy/secagg/config.hpp"

#include <algorithm>
#include <cmath>

namespace edgetrain::privacy::secagg {

const char* phase_name(Phase phase) {
  switch (phase) {
    case Phase::advertise_keys: return "AdvertiseKeys";
    case Phase::share_keys: return "ShareKeys";
    case Phase::masked_input: return "MaskedInputCollection";
    case Phase::consistency: return "ConsistencyCheck";
    case Phase::unmasking: return "Unmasking";
  }
  throw std::invalid_argument("secagg: unknown phase " + std::to_string(static_cast<int>(phase)));
}

namespace {

[[noreturn]] void fail(const std::string& why) { throw std::invalid_argument("secagg config: " + why); }

}  // namespace

void validate_settings(const Config& config) {
  if (config.vector_length == 0) fail("vector_length must be at least 1");
  if (config.field_bits < 2 || config.field_bits > 32)
    fail("field_bits must be in [2, 32], got " + std::to_string(config.field_bits));
  if (config.threshold < 2) fail("threshold must be at least 2: with t = 1 every share is the secret itself");
}

void validate(const Config& config, size_t participants) {
  validate_settings(config);
  if (participants < 2) fail("secure aggregation needs at least 2 participants");
  size_t closed = participants;
  if (config.kind == Kind::secagg_plus) {
    const size_t k = config.neighbours;
    if (k < 1 || k >= participants)
      fail("neighbours (k) must be in [1, n - 1] = [1, " + std::to_string(participants - 1) + "], got " +
           std::to_string(k));
    if (k % 2 == 1 && participants % 2 == 1)
      fail("no k-regular graph has an odd degree k = " + std::to_string(k) + " on an odd number of clients (" +
           std::to_string(participants) + ")");
    closed = k + 1;
  }
  if (config.threshold > closed)
    fail("threshold " + std::to_string(config.threshold) + " exceeds the " + std::to_string(closed) +
         " share holders of each secret");
}

NeighbourChoice bell_neighbours(size_t participants) {
  if (participants < 3) throw std::invalid_argument("secagg: SecAgg+ needs at least 3 participants");
  const auto log_n = std::log2(static_cast<double>(participants));
  const auto even = static_cast<size_t>(2 * std::ceil(1.5 * log_n));
  // Odd k only when k = n - 1 with n even: a complete graph, which is regular.
  const auto k = std::min(even, participants - 1);
  const auto t = static_cast<uint32_t>((k + 1) / 2 + 1);
  return {static_cast<uint32_t>(k), t};
}

}  // namespace edgetrain::privacy::secagg
