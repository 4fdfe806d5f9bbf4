// The settings of a secure-aggregation round: the protocol (SecAgg of Bonawitz et al., CCS 2017, or
// SecAgg+ of Bell et al., CCS 2020, where each client talks only to its k neighbours), the threshold t
// of the Shamir sharing, the vector length and the field Z_{2^b}; and Bell et al.'s choice of k and t.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace edgetrain::privacy::secagg {

enum class Kind { secagg, secagg_plus };

// The five rounds of Bonawitz et al. (figure 4): 0 AdvertiseKeys, 1 ShareKeys, 2 MaskedInputCollection,
// 3 ConsistencyCheck, 4 Unmasking.
enum class Phase : uint8_t { advertise_keys = 0, share_keys = 1, masked_input = 2, consistency = 3, unmasking = 4 };

const char* phase_name(Phase phase);

struct Config {
  Kind kind = Kind::secagg;
  // Shares needed to reconstruct a secret. SecAgg: out of all participants; SecAgg+: out of a client's
  // closed neighbourhood (its k neighbours and itself, which keeps a share of its own secrets).
  uint32_t threshold = 2;
  uint32_t vector_length = 0;  // m, field elements per input
  // b, the field Z_{2^b}. 32 by default: one element per uint32_t word, so reduction mod 2^b is the
  // machine's wrap-around and a masked upload is as large as the float32 update it carries; it leaves
  // 2^31 / n quantisation levels per client (2.1 million for n = 1,000), see field.hpp.
  uint32_t field_bits = 32;
  uint32_t neighbours = 0;  // k, SecAgg+ only: the degree of the masking graph
};

// A secure-aggregation message or state that the protocol rules out (a bad signature, too few
// neighbours, a share that does not decrypt): the client aborts, as the paper's clients do.
struct ProtocolAbort : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What a client checks, not knowing n: a vector, b in [2, 32], t at least 2 (with t = 1 every share
// would be the secret). Throws std::invalid_argument.
void validate_settings(const Config& config);

// validate_settings, and with `participants` clients known: n at least 2, t not above the share holders
// of a secret (n, or k + 1 for SecAgg+), k in [1, n - 1] and not odd with n odd (no such regular graph).
void validate(const Config& config, size_t participants);

// A SecAgg+ degree and threshold for n clients. Bell et al. (CCS 2020) prove that a k-regular graph of
// degree k = O(log n), with a threshold of about half a neighbourhood, keeps privacy and correctness
// with overwhelming probability against a bounded fraction of corrupt clients and dropouts; their
// abstract's concrete point is the semi-malicious setting, n = 10^4 with 5% corrupt and 5% dropouts:
// each client talks to 3% of the others (about 300). This helper is an O(log n) stand-in for the
// cheaper semi-honest setting, NOT the paper's table: k = 2*ceil(1.5*log2 n) (even, so a Harary graph
// exists for every n), at most n - 1, and t = floor((k + 1) / 2) + 1, a strict majority of the closed
// neighbourhood. Throws std::invalid_argument for n < 3.
struct NeighbourChoice {
  uint32_t neighbours;
  uint32_t threshold;
};
NeighbourChoice bell_neighbours(size_t participants);

}  // namespace edgetrain::privacy::secagg
