// The key material of secure aggregation (Bonawitz et al. 2017, section 3, "Key agreement" and
// "Signature scheme"): X25519 key pairs from seeded private keys, their agreement hashed into 32-byte
// keys (SHA-256 of a purpose label and the shared point: one seed for the pairwise mask s_{u,v}, one
// AES-256-GCM key for the shares a pair exchanges through the server), and Ed25519 signing keys for the
// consistency check. Ed25519 signatures are deterministic (RFC 8032), so messages replay byte for byte.
#pragma once

#include <span>
#include <string_view>

#include "privacy/secagg/primitives.hpp"

namespace edgetrain::privacy::secagg {

struct KeyPair {
  Key secret{};
  Key public_key{};
};

// Purpose labels of the two keys a pair derives.
inline constexpr std::string_view kMaskPurpose = "edgetrain secagg pairwise mask";
inline constexpr std::string_view kSharePurpose = "edgetrain secagg share encryption";

KeyPair x25519_key_pair(const Key& secret);

// The raw X25519 shared point. Throws ProtocolAbort when the peer's key is a low-order point (the
// agreement would be all zeros).
Key x25519_agree(const Key& secret, const Key& peer_public);

// SHA-256(purpose || 0x00 || shared): symmetric in the pair, because the shared point is.
Key derive_key(const Key& shared, std::string_view purpose);

KeyPair ed25519_key_pair(const Key& secret);
Signature ed25519_sign(const Key& secret, std::span<const uint8_t> message);
bool ed25519_verify(const Key& public_key, std::span<const uint8_t> message, const Signature& signature);

}  // namespace edgetrain::privacy::secagg
