// See client.hpp.
#include "privacy/secagg/client.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "privacy/secagg/aead.hpp"
#include "privacy/secagg/digest.hpp"
#include "privacy/secagg/field.hpp"
#include "privacy/secagg/prg.hpp"
#include "privacy/secagg/shamir.hpp"

namespace edgetrain::privacy::secagg {
namespace {

constexpr std::string_view kSigningPurpose = "secagg signing key";

std::string who(uint32_t id) { return "secagg client " + std::to_string(id); }

}  // namespace

Key signing_public_key(uint64_t seed, uint32_t id) {
  return ed25519_key_pair(seed_key(seed, kSigningPurpose, id)).public_key;
}

SecAggClient::SecAggClient(const Config& config, uint32_t id, uint64_t seed)
    : config_(config),
      id_(id),
      seed_(seed),
      cipher_keys_(x25519_key_pair(seed_key(seed, "secagg cipher key", id))),
      mask_keys_(x25519_key_pair(seed_key(seed, "secagg mask key", id))),
      signing_secret_(seed_key(seed, kSigningPurpose, id)),
      self_seed_(seed_key(seed, "secagg self mask", id)) {
  validate_settings(config);
  work_.key_generations += 3;  // c_u, s_u and the signing key
}

void SecAggClient::expect(Phase phase) {
  if (next_ != phase)
    throw std::invalid_argument(who(id_) + ": " + phase_name(phase) + " called when " + phase_name(next_) + " is due");
  next_ = static_cast<Phase>(static_cast<int>(phase) + 1);
}

const Key& SecAggClient::share_key(uint32_t peer) {
  auto it = share_keys_.find(peer);
  if (it == share_keys_.end()) {
    const Key shared = x25519_agree(cipher_keys_.secret, peers_.at(peer).cipher_public);
    ++work_.key_agreements;
    it = share_keys_.emplace(peer, derive_key(shared, kSharePurpose)).first;
  }
  return it->second;
}

Bytes SecAggClient::advertise() {
  expect(Phase::advertise_keys);
  advert_.cipher_public = cipher_keys_.public_key;
  advert_.mask_public = mask_keys_.public_key;
  advert_.signature = ed25519_sign(signing_secret_, advert_signed_bytes(advert_));
  ++work_.signatures_made;
  return encode_advert(advert_);
}

Bytes SecAggClient::share_keys(const Bytes& peer_adverts) {
  expect(Phase::share_keys);
  const auto adverts = decode_peer_adverts(peer_adverts);
  if (adverts.size() < config_.threshold)
    throw ProtocolAbort(who(id_) + ": " + std::to_string(adverts.size()) + " clients advertised keys, threshold " +
                        std::to_string(config_.threshold));
  bool listed = false;
  std::set<Key> keys;
  for (const auto& [v, advert] : adverts) {
    if (v == id_) {
      if (advert != advert_) throw ProtocolAbort(who(id_) + ": the server forwarded a different advert as its own");
      listed = true;
    } else {
      if (!ed25519_verify(signing_public_key(seed_, v), advert_signed_bytes(advert), advert.signature))
        throw ProtocolAbort(who(id_) + ": the advert of client " + std::to_string(v) + " has a bad signature");
      ++work_.signatures_verified;
      peers_.emplace(v, advert);
    }
    // Bonawitz et al., round 1: all key pairs must differ, or a server could make one client mask with itself.
    if (!keys.insert(advert.cipher_public).second || !keys.insert(advert.mask_public).second)
      throw ProtocolAbort(who(id_) + ": two adverts carry the same public key");
  }
  if (!listed) throw ProtocolAbort(who(id_) + ": its own advert is missing from the server's list");

  std::vector<uint32_t> holders;
  for (const auto& p : adverts) holders.push_back(p.id);
  Prg coefficients(seed_key(seed_, "secagg shamir", id_));
  const auto mask_key_shares = share_secret(mask_keys_.secret, config_.threshold, holders, coefficients);
  const auto self_seed_shares = share_secret(self_seed_, config_.threshold, holders, coefficients);
  work_.shares_made += 2 * holders.size();

  std::vector<Sealed> out;
  for (size_t i = 0; i < holders.size(); ++i) {
    const SharePair pair{id_, holders[i], mask_key_shares[i], self_seed_shares[i]};
    if (holders[i] == id_) {
      own_shares_ = pair;
      continue;
    }
    const Bytes plain = encode_share_pair(pair);
    out.push_back({holders[i], seal(share_key(holders[i]), pair_nonce(id_, holders[i]), plain)});
    work_.bytes_encrypted += plain.size();
  }
  return encode_sealed(Tag::sealed_to_peers, out);
}

Bytes SecAggClient::masked_input(const Bytes& sealed_shares, std::span<const uint32_t> quantised) {
  expect(Phase::masked_input);
  if (quantised.size() != config_.vector_length)
    throw std::invalid_argument(who(id_) + ": input of " + std::to_string(quantised.size()) +
                                " elements, config says " + std::to_string(config_.vector_length));
  const uint32_t mask = field_mask(config_.field_bits);
  for (size_t i = 0; i < quantised.size(); ++i)
    if (quantised[i] > mask)
      throw std::invalid_argument(who(id_) + ": input element " + std::to_string(i) + " is not below 2^" +
                                  std::to_string(config_.field_bits));
  for (auto& s : decode_sealed(Tag::sealed_from_peers, sealed_shares)) {
    if (!peers_.contains(s.peer))
      throw ProtocolAbort(who(id_) + ": shares from client " + std::to_string(s.peer) + ", not among its peers");
    received_.emplace(s.peer, std::move(s.sealed));
  }
  // U2 within the closed neighbourhood: the partners that sent shares, and the client itself.
  if (received_.size() + 1 < config_.threshold)
    throw ProtocolAbort(who(id_) + ": " + std::to_string(received_.size() + 1) + " clients shared keys, threshold " +
                        std::to_string(config_.threshold));

  std::vector<uint32_t> y(quantised.begin(), quantised.end());
  apply_mask(self_seed_, false, y, config_.field_bits);
  work_.prg_elements += y.size();
  for (const auto& [v, sealed] : received_) {
    const Key seed = derive_key(x25519_agree(mask_keys_.secret, peers_.at(v).mask_public), kMaskPurpose);
    ++work_.key_agreements;
    // Bonawitz et al., round 2: +PRG(s_{u,v}) when u < v, -PRG(s_{u,v}) when u > v, so each pair cancels.
    apply_mask(seed, id_ > v, y, config_.field_bits);
    work_.prg_elements += y.size();
  }
  return encode_masked_input(y, config_.field_bits);
}

Bytes SecAggClient::consistency(const Bytes& survivors) {
  expect(Phase::consistency);
  survivors_ = decode_survivors(survivors);
  if (!std::binary_search(survivors_.begin(), survivors_.end(), id_))
    throw ProtocolAbort(who(id_) + ": asked to sign a survivor list without itself");
  size_t live = 1;
  for (uint32_t v : survivors_) {
    if (v == id_ || !peers_.contains(v)) continue;
    if (!received_.contains(v))
      throw ProtocolAbort(who(id_) + ": client " + std::to_string(v) + " is listed as a survivor but shared no keys");
    ++live;
  }
  if (live < config_.threshold)
    throw ProtocolAbort(who(id_) + ": " + std::to_string(live) + " survivors among its neighbours, threshold " +
                        std::to_string(config_.threshold));
  survivors_message_ = survivors;
  ++work_.signatures_made;
  return encode_signature(ed25519_sign(signing_secret_, survivors_message_));
}

Bytes SecAggClient::unmask(const Bytes& peer_signatures) {
  expect(Phase::unmasking);
  const auto signatures = decode_peer_signatures(peer_signatures);
  if (signatures.size() < config_.threshold)
    throw ProtocolAbort(who(id_) + ": " + std::to_string(signatures.size()) + " consistency signatures, threshold " +
                        std::to_string(config_.threshold));
  for (const auto& [v, signature] : signatures) {
    if (v != id_ && !peers_.contains(v))
      throw ProtocolAbort(who(id_) + ": a signature from client " + std::to_string(v) + ", not among its peers");
    if (!std::binary_search(survivors_.begin(), survivors_.end(), v))
      throw ProtocolAbort(who(id_) + ": a signature from client " + std::to_string(v) + ", not in U3");
    if (v == id_) continue;
    if (!ed25519_verify(signing_public_key(seed_, v), survivors_message_, signature))
      throw ProtocolAbort(who(id_) + ": client " + std::to_string(v) + " signed a different survivor list");
    ++work_.signatures_verified;
  }
  // Bonawitz et al., round 4: for a survivor, the share of its self-mask seed; for a dropout, of its mask
  // key. Never both for one client, or the server could unmask that client's input.
  std::vector<OwnedShare> out;
  out.push_back({id_, own_shares_.self_seed});
  for (const auto& [v, sealed] : received_) {
    const auto plain = open(share_key(v), sealed);
    if (!plain) throw ProtocolAbort(who(id_) + ": the shares from client " + std::to_string(v) + " do not decrypt");
    work_.bytes_decrypted += plain->size();
    const SharePair pair = decode_share_pair(*plain, id_);
    if (pair.from != v || pair.to != id_)
      throw ProtocolAbort(who(id_) + ": the shares from client " + std::to_string(v) + " name another pair");
    const bool survived = std::binary_search(survivors_.begin(), survivors_.end(), v);
    out.push_back({v, survived ? pair.self_seed : pair.mask_key});
  }
  std::sort(out.begin(), out.end(), [](const OwnedShare& a, const OwnedShare& b) { return a.owner < b.owner; });
  return encode_unmask_shares(out);
}

}  // namespace edgetrain::privacy::secagg
