// Message sizes of secure aggregation without running it, for timing-only runs: each message's length
// as a formula of what it lists (exactly the serialized length, see messages.hpp), and each phase's
// sizes for a whole round from (kind, n, k, t, m, b, dropouts). The primitive sizes and their sources
// are in primitives.hpp (X25519 and Ed25519 keys, signatures, GCM nonce and tag), shamir.hpp (a share:
// 40 bytes) and messages.hpp (a sealed share pair: 116 bytes).
#pragma once

#include <array>
#include <cstdint>

#include "privacy/secagg/config.hpp"

namespace edgetrain::privacy::secagg::sizes {

// Round 0, client -> server.
uint64_t advert();
// Round 1, server -> client: the adverts of `entries` clients (the live closed neighbourhood).
uint64_t peer_adverts(uint64_t entries);
// Round 1 client -> server (to `peers` recipients) and round 2 server -> client (from `peers` senders).
uint64_t sealed_shares(uint64_t peers);
// Round 2, client -> server.
uint64_t masked_input(uint64_t length, uint32_t field_bits);
// Round 3, server -> client (U3 of `survivors` ids) and client -> server.
uint64_t survivors(uint64_t survivors);
uint64_t signature();
// Round 4, server -> client (`entries` signatures) and client -> server (`shares` shares).
uint64_t peer_signatures(uint64_t entries);
uint64_t unmask_shares(uint64_t shares);

// How many clients do not answer each phase, among those asked: silent[0] never advertise,
// silent[1] drop after AdvertiseKeys, silent[2] after ShareKeys (their pairwise masks are recovered),
// silent[3] after MaskedInput (their inputs still count), silent[4] after ConsistencyCheck.
struct Dropouts {
  std::array<uint32_t, 5> silent{};
};

struct PhaseSizes {
  uint32_t receivers = 0;  // clients the server's message goes to (0 in round 0: the round opens with none)
  uint64_t download = 0;   // bytes of the server's message, per receiver
  uint32_t senders = 0;    // clients that answer
  uint64_t upload = 0;     // bytes of each answer
};

// Each phase's sizes for a round. SecAgg: exact. SecAgg+: exact without dropouts; with dropouts, a
// client's live neighbours are taken as the mean share of its k (rounded), while the real count varies
// by client with where the dropouts fall on the graph. Throws std::invalid_argument when validate()
// rejects the config for n, or the dropouts exceed the clients asked.
std::array<PhaseSizes, 5> round_sizes(const Config& config, uint32_t participants, const Dropouts& dropouts);

}  // namespace edgetrain::privacy::secagg::sizes
