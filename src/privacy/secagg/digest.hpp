// SHA-256 and the 32-byte key material of secure aggregation drawn from the run's 64-bit seed: every
// secret of the protocol (key pairs, self-mask seeds, Shamir coefficients) comes from here, so the same
// seed gives byte-identical messages. Only 64 bits of entropy stand behind each key: right for an
// emulator that must replay runs, not for a deployment.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "privacy/secagg/primitives.hpp"

namespace edgetrain::privacy::secagg {

Key sha256(std::span<const uint8_t> data);

// SHA-256 of util::derive_seed(seed, purpose, id): a key per (purpose, party).
Key seed_key(uint64_t seed, std::string_view purpose, uint64_t id);

}  // namespace edgetrain::privacy::secagg
