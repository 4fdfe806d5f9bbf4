// The messages of secure aggregation and their serialized form, phase by phase (Bonawitz et al. 2017,
// figure 4; SecAgg+ sends the same ones, restricted to neighbours). Each message opens with a tag byte,
// lists open with a 4-byte count, ids are 4 bytes; sizes.hpp gives every length as a formula.
//   0 AdvertiseKeys      client -> server  Advert (c_u^PK, s_u^PK, signature over both)
//   1 ShareKeys          server -> client  the adverts of the client's live neighbourhood, itself included
//                        client -> server  one sealed SharePair per live neighbour
//   2 MaskedInput        server -> client  the sealed SharePairs addressed to it
//                        client -> server  y_u, m elements packed at b bits
//   3 ConsistencyCheck   server -> client  U3, the clients whose masked input arrived
//                        client -> server  the client's signature over that message
//   4 Unmasking          server -> client  the signatures of its neighbours in U4
//                        client -> server  one share per neighbour in U2 (and itself): of b_v if v is in U3,
//                                          else of s_v^SK
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "privacy/secagg/primitives.hpp"
#include "privacy/secagg/shamir.hpp"

namespace edgetrain::privacy::secagg {

enum class Tag : uint8_t {
  advert = 1,
  peer_adverts,
  sealed_to_peers,
  sealed_from_peers,
  masked_input,
  survivors,
  signature,
  peer_signatures,
  unmask_shares,
};

struct Advert {
  Key cipher_public{};  // c_u^PK: agreement for the share encryption key
  Key mask_public{};    // s_u^PK: agreement for the pairwise mask seeds
  Signature signature{};
  bool operator==(const Advert&) const = default;
};

// The bytes an advert's signature covers: c_u^PK || s_u^PK.
Bytes advert_signed_bytes(const Advert& advert);

struct PeerAdvert {
  uint32_t id = 0;
  Advert advert;
};

// A sealed SharePair with the other end of it: the recipient (client -> server) or the sender
// (server -> client).
struct Sealed {
  uint32_t peer = 0;
  Bytes sealed;
};

// Inside a sealed message: u || v || share of s_u^SK || share of b_u (Bonawitz et al., round 1).
struct SharePair {
  uint32_t from = 0;
  uint32_t to = 0;
  Share mask_key;   // of s_u^SK
  Share self_seed;  // of b_u
};
inline constexpr size_t kSharePairBytes = 2 * kIdBytes + 2 * kShareBytes;
// Sealed with AES-256-GCM (aead.hpp): nonce || ciphertext || tag.
inline constexpr size_t kSealedSharePairBytes = kGcmNonceBytes + kSharePairBytes + kGcmTagBytes;

struct PeerSignature {
  uint32_t id = 0;
  Signature signature{};
};

// A share of `owner`'s secret, held by the sender (round 4).
struct OwnedShare {
  uint32_t owner = 0;
  Share share;
};

Bytes encode_advert(const Advert& advert);
Advert decode_advert(std::span<const uint8_t> message);

Bytes encode_peer_adverts(const std::vector<PeerAdvert>& adverts);
std::vector<PeerAdvert> decode_peer_adverts(std::span<const uint8_t> message);

// Tag::sealed_to_peers or Tag::sealed_from_peers: the same layout, two directions.
Bytes encode_sealed(Tag tag, const std::vector<Sealed>& sealed);
std::vector<Sealed> decode_sealed(Tag tag, std::span<const uint8_t> message);

Bytes encode_share_pair(const SharePair& pair);
// `holder` is the recipient, whose x the shares sit at.
SharePair decode_share_pair(std::span<const uint8_t> plain, uint32_t holder);

Bytes encode_masked_input(std::span<const uint32_t> y, uint32_t bits);
// Throws unless the message holds exactly `length` elements of `bits`.
std::vector<uint32_t> decode_masked_input(std::span<const uint8_t> message, uint32_t length, uint32_t bits);

Bytes encode_survivors(const std::vector<uint32_t>& ids);
std::vector<uint32_t> decode_survivors(std::span<const uint8_t> message);

Bytes encode_signature(const Signature& signature);
Signature decode_signature(std::span<const uint8_t> message);

Bytes encode_peer_signatures(const std::vector<PeerSignature>& signatures);
std::vector<PeerSignature> decode_peer_signatures(std::span<const uint8_t> message);

// `holder` is the sender of the message, whose x the shares sit at.
Bytes encode_unmask_shares(const std::vector<OwnedShare>& shares);
std::vector<OwnedShare> decode_unmask_shares(std::span<const uint8_t> message, uint32_t holder);

}  // namespace edgetrain::privacy::secagg
