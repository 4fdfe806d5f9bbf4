// What one party of secure aggregation computed, counted so the simulator can charge it as compute time
// (the operations in which Bonawitz et al. 2017 and Bell et al. 2020 state their costs).
#pragma once

#include <cstdint>

namespace edgetrain::privacy::secagg {

struct Work {
  uint64_t prg_elements = 0;         // field elements of masks expanded by the PRG (AES-256-CTR)
  uint64_t key_generations = 0;      // public keys computed from private ones (X25519 or Ed25519)
  uint64_t key_agreements = 0;       // X25519 agreements, one scalar multiplication each
  uint64_t shares_made = 0;          // Shamir shares evaluated (t coefficients each, per 32-byte secret)
  uint64_t reconstructions = 0;      // secrets recovered by Lagrange interpolation
  uint64_t shares_combined = 0;      // shares used by those reconstructions (the interpolation is O(t^2))
  uint64_t signatures_made = 0;      // Ed25519
  uint64_t signatures_verified = 0;  // Ed25519
  uint64_t bytes_encrypted = 0;      // AES-256-GCM plaintext bytes sealed
  uint64_t bytes_decrypted = 0;      // AES-256-GCM plaintext bytes opened

  bool operator==(const Work&) const = default;
};

}  // namespace edgetrain::privacy::secagg
