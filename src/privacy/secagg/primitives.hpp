// The byte types of secure aggregation and the sizes of its cryptographic primitives, each with the
// standard that fixes it: the message formats (messages.hpp) and the size formulas (sizes.hpp) are
// built from these, so a timing-only run charges the same bytes the real protocol sends.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace edgetrain::privacy::secagg {

// A serialized message: its size() is what goes on the wire.
using Bytes = std::vector<uint8_t>;

// X25519 keys are 32 bytes, private and public (RFC 7748, section 5).
inline constexpr size_t kX25519KeyBytes = 32;
// Ed25519 keys are 32 bytes (RFC 8032, section 5.1.5), signatures 64 bytes (section 5.1.6).
inline constexpr size_t kEd25519KeyBytes = 32;
inline constexpr size_t kEd25519SignatureBytes = 64;
// AES-GCM: the 96-bit nonce recommended by NIST SP 800-38D (section 8.2) and its full 128-bit tag
// (section 5.2.1.2), carried in front of and after the ciphertext.
inline constexpr size_t kGcmNonceBytes = 12;
inline constexpr size_t kGcmTagBytes = 16;
// Seeds and symmetric keys: 32 bytes, an AES-256 key (FIPS 197) and a SHA-256 output (FIPS 180-4).
inline constexpr size_t kKeyBytes = 32;

// 32 bytes of key material: a seed, a symmetric key, or an X25519/Ed25519 key.
using Key = std::array<uint8_t, kKeyBytes>;
using Signature = std::array<uint8_t, kEd25519SignatureBytes>;

// This project's framing: a one-byte message tag, 4-byte little-endian client ids and list counts.
inline constexpr size_t kTagBytes = 1;
inline constexpr size_t kIdBytes = 4;
inline constexpr size_t kCountBytes = 4;

}  // namespace edgetrain::privacy::secagg
