// Authenticated encryption of the Shamir shares one client sends another through the server
// (Bonawitz et al. 2017, section 3, "Authenticated encryption"): AES-256-GCM with a 12-byte nonce and a
// 16-byte tag, sealed as nonce || ciphertext || tag. A pair's key seals one message in each direction,
// so a nonce made of (sender, recipient) never repeats under a key and needs no randomness.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "privacy/secagg/primitives.hpp"

namespace edgetrain::privacy::secagg {

using Nonce = std::array<uint8_t, kGcmNonceBytes>;

// The nonce of the message from `sender` to `recipient`: both ids little-endian, then four zero bytes.
Nonce pair_nonce(uint32_t sender, uint32_t recipient);

// Sealed length of `plain_bytes`: kGcmNonceBytes + plain_bytes + kGcmTagBytes.
constexpr size_t sealed_size(size_t plain_bytes) { return kGcmNonceBytes + plain_bytes + kGcmTagBytes; }

Bytes seal(const Key& key, const Nonce& nonce, std::span<const uint8_t> plain);

// The plaintext, or nothing when the tag does not authenticate (wrong key or altered bytes).
std::optional<Bytes> open(const Key& key, std::span<const uint8_t> sealed);

}  // namespace edgetrain::privacy::secagg
