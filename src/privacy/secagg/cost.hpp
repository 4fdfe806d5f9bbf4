// What secure aggregation costs in compute, charged to the simulated clock: the operations each party
// performs in each phase (the same counts as Work, from the sizes of the live sets alone, so a
// timing-only run charges what a real one does), and each operation in FLOP-equivalents: its time on a
// reference core (`openssl speed`, OpenSSL 3.0, AES-NI off, as edge SoCs such as the Raspberry Pi 4 have
// no AES instructions) times that core's single-thread SGEMM rate (41.9 GFLOP/s), so that a device
// of speed S FLOP/s takes (cost / S) seconds. docs/explanation/secure-aggregation.md gives the commands.
#pragma once

#include <cstdint>

#include "privacy/secagg/config.hpp"
#include "privacy/secagg/work.hpp"

namespace edgetrain::privacy::secagg {

// FLOP-equivalents per operation (measured, see above).
inline constexpr double kX25519Flops = 1.175e6;         // 35,651 agreements/s
inline constexpr double kSignFlops = 1.133e6;           // Ed25519: 36,992 signatures/s
inline constexpr double kVerifyFlops = 3.127e6;         // Ed25519: 13,401 verifications/s
inline constexpr double kPrgElementFlops = 424;         // 4 bytes of AES-256-CTR at 395 MB/s (software)
inline constexpr double kSealedByteFlops = 106;         // AES-256-GCM, charged as software CTR per byte
inline constexpr double kModularMultiplyFlops = 126;    // one multiply-add mod 2^61 - 1 (about 3 ns)
inline constexpr double kShareChunks = 5;               // a 32-byte secret is five chunks (shamir.hpp)

// The FLOP-equivalents of `work` with threshold t (a share evaluates t coefficients per chunk; a
// reconstruction interpolates t shares, O(t^2) per chunk).
double work_flops(const Work& work, uint32_t threshold);

// What a client computes in `phase`, from the counts it sees: `peers`, its live neighbours (itself not
// counted) in the set the phase's message lists (U1 for share_keys, U2 for masked_input and unmasking,
// U4 for unmasking's signatures), `partners` those that sent it shares (U2 within its neighbourhood),
// and the vector length m.
struct ClientCounts {
  uint64_t peers = 0;
  uint64_t partners = 0;
  uint64_t signers = 0;  // unmasking: signatures it checks (its live neighbours in U4)
  uint64_t vector_length = 0;
};
Work client_work(Phase phase, const ClientCounts& counts);

}  // namespace edgetrain::privacy::secagg
