// See server.hpp.
#include "privacy/secagg/server.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "privacy/secagg/field.hpp"
#include "privacy/secagg/keys.hpp"
#include "privacy/secagg/prg.hpp"
#include "privacy/secagg/shamir.hpp"

namespace edgetrain::privacy::secagg {
namespace {

bool contains(const std::vector<uint32_t>& sorted, uint32_t id) {
  return std::binary_search(sorted.begin(), sorted.end(), id);
}

std::string client(uint32_t id) { return "client " + std::to_string(id); }

}  // namespace

SecAggServer::SecAggServer(const Config& config, std::vector<uint32_t> participants, uint64_t seed)
    : config_(config), graph_(build_graph(config, participants, seed)), masked_sum_(config.vector_length, 0) {
  std::sort(participants.begin(), participants.end());
  asked_ = std::move(participants);
}

void SecAggServer::expect_open(Phase phase, const char* action) const {
  if (ended_) throw std::invalid_argument(std::string("secagg server: ") + action + " after the round ended");
  if (phase != open_)
    throw std::invalid_argument(std::string("secagg server: ") + action + " for " + phase_name(phase) + " while " +
                                phase_name(open_) + " is open");
}

std::vector<uint32_t> SecAggServer::live_neighbours(uint32_t u, const std::vector<uint32_t>& set) const {
  return secagg::live_neighbours(graph_, u, set);
}

std::string SecAggServer::below_threshold(const std::vector<uint32_t>& live) const {
  if (live.empty()) return "no client answered";
  const std::optional<Shortfall> short_of = first_below_threshold(graph_, live, config_.threshold);
  if (!short_of) return {};
  return client(short_of->client) + " has " + std::to_string(short_of->live) +
         " live clients in its neighbourhood, threshold " + std::to_string(config_.threshold);
}

void SecAggServer::receive(Phase phase, uint32_t from, const Bytes& message) {
  expect_open(phase, "a message");
  if (!contains(asked_, from))
    throw std::invalid_argument("secagg server: " + client(from) + " was not asked in " + phase_name(phase));
  if (answered_.contains(from))
    throw std::invalid_argument("secagg server: " + client(from) + " answered " + phase_name(phase) + " twice");
  switch (phase) {
    case Phase::advertise_keys: adverts_[from] = decode_advert(message); break;
    case Phase::share_keys: {
      const auto expected = live_neighbours(from, u1_);
      auto sealed = decode_sealed(Tag::sealed_to_peers, message);
      std::vector<uint32_t> recipients;
      for (const auto& s : sealed) recipients.push_back(s.peer);
      if (recipients != expected)
        throw std::invalid_argument("secagg server: " + client(from) + " sealed shares for " +
                                    std::to_string(recipients.size()) + " clients, not its " +
                                    std::to_string(expected.size()) + " live neighbours");
      for (auto& s : sealed) sealed_[s.peer][from] = std::move(s.sealed);
      break;
    }
    case Phase::masked_input:
      add_mod(masked_sum_, decode_masked_input(message, config_.vector_length, config_.field_bits), config_.field_bits);
      break;
    case Phase::consistency: signatures_[from] = decode_signature(message); break;
    case Phase::unmasking: {
      auto shares = decode_unmask_shares(message, from);
      for (const auto& s : shares)
        if (!contains(u2_, s.owner) || (s.owner != from && !contains(graph_.at(from), s.owner)))
          throw std::invalid_argument("secagg server: " + client(from) + " sent a share of " + client(s.owner) +
                                      ", not a neighbour that shared keys");
      shares_[from] = std::move(shares);
      break;
    }
  }
  answered_.insert(from);
}

PhaseResult SecAggServer::close(Phase phase) {
  expect_open(phase, "closing");
  PhaseResult result;
  result.answered.assign(answered_.begin(), answered_.end());
  answered_.clear();
  const auto& live = result.answered;
  switch (phase) {
    case Phase::advertise_keys: u1_ = live; break;
    case Phase::share_keys: u2_ = live; break;
    case Phase::masked_input: u3_ = live; break;
    case Phase::consistency: u4_ = live; break;
    case Phase::unmasking: break;
  }
  const std::string failure = phase == Phase::unmasking ? unmask().value_or("") : below_threshold(live);
  ended_ = !failure.empty() || phase == Phase::unmasking;
  if (!failure.empty()) {
    result.failed = true;
    result.failure = std::string("secagg ") + phase_name(phase) + ": " + failure;
    return result;
  }
  if (phase != Phase::unmasking) {
    result.next = next_messages(phase);
    asked_ = live;
    open_ = static_cast<Phase>(static_cast<int>(phase) + 1);
  }
  return result;
}

std::map<uint32_t, Bytes> SecAggServer::next_messages(Phase closed) {
  std::map<uint32_t, Bytes> next;
  switch (closed) {
    case Phase::advertise_keys:
      for (uint32_t u : u1_) {
        auto members = live_neighbours(u, u1_);
        members.insert(std::upper_bound(members.begin(), members.end(), u), u);
        std::vector<PeerAdvert> list;
        for (uint32_t v : members) list.push_back({v, adverts_.at(v)});
        next[u] = encode_peer_adverts(list);
      }
      break;
    case Phase::share_keys:
      for (uint32_t u : u2_) {
        std::vector<Sealed> list;
        // Every v in U2 sealed shares for all of its live neighbours, u among them.
        for (uint32_t v : live_neighbours(u, u2_)) list.push_back({v, sealed_.at(u).at(v)});
        next[u] = encode_sealed(Tag::sealed_from_peers, list);
      }
      break;
    case Phase::masked_input:
      survivors_message_ = encode_survivors(u3_);
      for (uint32_t u : u3_) next[u] = survivors_message_;
      break;
    case Phase::consistency:
      for (uint32_t u : u4_) {
        auto members = live_neighbours(u, u4_);
        members.insert(std::upper_bound(members.begin(), members.end(), u), u);
        std::vector<PeerSignature> list;
        for (uint32_t v : members) list.push_back({v, signatures_.at(v)});
        next[u] = encode_peer_signatures(list);
      }
      break;
    case Phase::unmasking: break;
  }
  return next;
}

std::optional<std::string> SecAggServer::unmask() {
  std::map<uint32_t, std::vector<Share>> by_owner;
  for (const auto& [holder, shares] : shares_)
    for (const auto& s : shares) by_owner[s.owner].push_back(s.share);
  // The secret of `owner` from the first t shares received, or why it cannot be had.
  std::string why;
  auto recover = [&](uint32_t owner, const char* secret) -> std::optional<Key> {
    const auto& shares = by_owner[owner];
    if (shares.size() < config_.threshold) {
      why = std::to_string(shares.size()) + " shares of the " + secret + " of " + client(owner) + ", threshold " +
            std::to_string(config_.threshold);
      return std::nullopt;
    }
    ++work_.reconstructions;
    work_.shares_combined += config_.threshold;
    try {
      return reconstruct_secret(shares, config_.threshold);
    } catch (const std::invalid_argument& e) {
      why = "the shares of the " + std::string(secret) + " of " + client(owner) + ": " + e.what();
      return std::nullopt;
    }
  };
  std::vector<uint32_t> sum = std::move(masked_sum_);
  for (uint32_t v : u3_) {
    const auto self_seed = recover(v, "self-mask seed");
    if (!self_seed) return why;
    apply_mask(*self_seed, true, sum, config_.field_bits);
    work_.prg_elements += sum.size();
  }
  std::vector<uint32_t> dropped;
  std::set_difference(u2_.begin(), u2_.end(), u3_.begin(), u3_.end(), std::back_inserter(dropped));
  for (uint32_t v : dropped) {
    const auto mask_secret = recover(v, "mask key (dropped after ShareKeys)");
    if (!mask_secret) return why;
    ++work_.key_generations;
    if (x25519_key_pair(*mask_secret).public_key != adverts_.at(v).mask_public)
      return "the mask key reconstructed for " + client(v) + " does not match its advert";
    for (uint32_t u : live_neighbours(v, u3_)) {
      const Key seed = derive_key(x25519_agree(*mask_secret, adverts_.at(u).mask_public), kMaskPurpose);
      ++work_.key_agreements;
      // u added +PRG(s_{u,v}) when u < v: take it out again.
      apply_mask(seed, u < v, sum, config_.field_bits);
      work_.prg_elements += sum.size();
    }
  }
  sum_ = std::move(sum);
  return std::nullopt;
}

}  // namespace edgetrain::privacy::secagg
