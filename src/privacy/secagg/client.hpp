// A client of secure aggregation (Bonawitz et al. 2017, figure 4, the user's side of rounds 0 to 4;
// SecAgg+ of Bell et al. 2020 when the server forwards only its neighbours' keys). Message-driven:
// each call takes the server's message of a phase and returns the client's answer, so the simulator can
// carry both through its network and drop a client by never delivering. Calls must come in phase order;
// a call out of order or on a malformed message throws std::invalid_argument, and a message the protocol
// rules out (fewer than t peers, a bad signature, a share that does not decrypt) throws ProtocolAbort:
// the client stops, as the paper's clients abort.
//
// Every secret comes from `seed`, the round's seed shared by all parties, by purpose and client id
// (digest.hpp). The paper's PKI, which tells each client the others' signature keys, is modelled by
// the same derivation: signing_public_key(seed, v).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "privacy/secagg/config.hpp"
#include "privacy/secagg/keys.hpp"
#include "privacy/secagg/messages.hpp"
#include "privacy/secagg/work.hpp"

namespace edgetrain::privacy::secagg {

// Client `id`'s Ed25519 verification key, as the PKI would hand it out.
Key signing_public_key(uint64_t seed, uint32_t id);

class SecAggClient {
 public:
  SecAggClient(const Config& config, uint32_t id, uint64_t seed);

  // Round 0: c_u^PK, s_u^PK and the signature over them.
  Bytes advertise();
  // Round 1: from the adverts of its live neighbourhood, Shamir shares of s_u^SK and b_u for each
  // neighbour (and itself), sealed per recipient.
  Bytes share_keys(const Bytes& peer_adverts);
  // Round 2: from the sealed shares addressed to it (whose senders are its masking partners), the
  // masked input y_u = x_u + PRG(b_u) + sum_v +-PRG(s_{u,v}) mod 2^b. `quantised` holds m elements < 2^b.
  Bytes masked_input(const Bytes& sealed_shares, std::span<const uint32_t> quantised);
  // Round 3: its signature over U3, the survivors list the server sent.
  Bytes consistency(const Bytes& survivors);
  // Round 4: after checking t signatures over U3, a share of b_v for each partner v in U3 (and itself),
  // of s_v^SK for each partner that dropped.
  Bytes unmask(const Bytes& peer_signatures);

  uint32_t id() const { return id_; }
  const Work& work() const { return work_; }

 private:
  void expect(Phase phase);
  const Key& share_key(uint32_t peer);

  Config config_;
  uint32_t id_;
  uint64_t seed_;
  KeyPair cipher_keys_;
  KeyPair mask_keys_;
  Key signing_secret_;
  Key self_seed_;  // b_u
  Advert advert_;
  Phase next_ = Phase::advertise_keys;
  std::map<uint32_t, Advert> peers_;    // U1 within the neighbourhood, itself excluded
  std::map<uint32_t, Key> share_keys_;  // AES-GCM key per peer, agreed once
  SharePair own_shares_;                // the shares of its own secrets it keeps
  std::map<uint32_t, Bytes> received_;  // sealed share pairs from U2 partners
  Bytes survivors_message_;             // U3 as received: what the signatures cover
  std::vector<uint32_t> survivors_;
  Work work_;
};

}  // namespace edgetrain::privacy::secagg
