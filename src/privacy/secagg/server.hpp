// The server of secure aggregation (Bonawitz et al. 2017, figure 4, the server's side of rounds 0 to
// 4; SecAgg+ of Bell et al. 2020 on the graph of graph.hpp). Message-driven: during a phase the
// simulator hands it each client message that arrives (receive), then ends the phase at its deadline
// (close), which names who answered and returns the next phase's message for each of them. A client
// that does not answer a phase is left out of every later one. After Unmasking, sum() is the sum mod
// 2^b of the inputs of U3, the clients whose masked input arrived: the server removes their self masks
// with the b_v it reconstructs, and the pairwise masks they share with clients that dropped after
// ShareKeys with the s_v^SK it reconstructs.
//
// Phases 0 to 3 fail the round when, after them, some live client has fewer than t live clients in its
// closed neighbourhood (all of U for SecAgg): that client would abort, and its secrets could not be
// recovered. Unmasking fails when a secret it needs has fewer than t shares among those that came back
// (the same rule seen from the secret's owner), or shares that do not reconstruct it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "privacy/secagg/config.hpp"
#include "privacy/secagg/graph.hpp"
#include "privacy/secagg/messages.hpp"
#include "privacy/secagg/work.hpp"

namespace edgetrain::privacy::secagg {

struct PhaseResult {
  bool failed = false;
  std::string failure;             // why, when failed
  std::vector<uint32_t> answered;  // who answered this phase, sorted: U1 ... U5
  std::map<uint32_t, Bytes> next;  // the next phase's message to each client; none after Unmasking or failure
};

class SecAggServer {
 public:
  // `seed` is the round's (the clients' too); it lays out the SecAgg+ graph.
  SecAggServer(const Config& config, std::vector<uint32_t> participants, uint64_t seed);

  // A client's message of the open phase. Throws std::invalid_argument for another phase, a client not
  // asked in it, a second message from one client, or a malformed message.
  void receive(Phase phase, uint32_t from, const Bytes& message);
  // Ends the open phase (in order, 0 to 4); the round ends with Unmasking or a failure.
  PhaseResult close(Phase phase);

  // The sum mod 2^b of U3's inputs, once Unmasking closed without failure.
  const std::optional<std::vector<uint32_t>>& sum() const { return sum_; }
  const Work& work() const { return work_; }

 private:
  void expect_open(Phase phase, const char* action) const;
  // The check of the header's second paragraph over `live`; empty when it holds.
  std::string below_threshold(const std::vector<uint32_t>& live) const;
  std::vector<uint32_t> live_neighbours(uint32_t u, const std::vector<uint32_t>& set) const;
  std::map<uint32_t, Bytes> next_messages(Phase closed);
  // Removes the masks from the sum of U3's inputs; the reason when a secret cannot be recovered.
  std::optional<std::string> unmask();

  Config config_;
  Neighbours graph_;
  Phase open_ = Phase::advertise_keys;
  bool ended_ = false;           // failed, or Unmasking closed
  std::vector<uint32_t> asked_;  // who the open phase's message went to, sorted
  std::set<uint32_t> answered_;  // who answered the open phase so far
  // What each phase brought, by client.
  std::map<uint32_t, Advert> adverts_;
  std::map<uint32_t, std::map<uint32_t, Bytes>> sealed_;  // sealed_[to][from]
  std::vector<uint32_t> masked_sum_;                      // y_u of U3 summed as they arrive: one vector, not n
  std::map<uint32_t, Signature> signatures_;
  std::map<uint32_t, std::vector<OwnedShare>> shares_;  // by holder
  std::vector<uint32_t> u1_, u2_, u3_, u4_;             // U5 is who sent shares_
  Bytes survivors_message_;
  std::optional<std::vector<uint32_t>> sum_;
  Work work_;
};

}  // namespace edgetrain::privacy::secagg
