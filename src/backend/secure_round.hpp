// One round of secure aggregation as the back-end computes it (privacy.secure_aggregation,
// docs/explanation/secure-aggregation.md): the devices' answers in each phase and the aggregator's
// messages back, with their sizes and the compute they cost. Real runs drive the real protocol
// (privacy/secagg: X25519, Shamir, AES masks) on the devices' quantised updates, and check each message's
// length against the size formulas; timing-only runs keep the same live sets and take the formulas, so
// both charge the same bytes and FLOPs. The simulation carries the messages; nothing here sees SimGrid.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "privacy/secagg/config.hpp"
#include "privacy/secagg/field.hpp"
#include "privacy/secagg/graph.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::privacy::secagg {
class SecAggServer;
class SecAggClient;
}  // namespace edgetrain::privacy::secagg

namespace edgetrain::backend {

using privacy::secagg::Phase;

// A protocol message: its length on the wire (without the simulator's header), and its bytes in real runs.
struct ProtocolMessage {
  int64_t bytes = 0;
  std::vector<uint8_t> payload;
};

struct PhaseOutcome {
  std::string failure;          // why the round failed in this phase; empty: it goes on
  bool failed() const { return !failure.empty(); }
  std::vector<size_t> answered;  // the devices that answered, sorted
  std::vector<std::pair<size_t, ProtocolMessage>> next;  // the next phase's message to each of them
  double server_flops = 0;       // what the aggregator computed closing the phase (unmasking)
};

// The range [-range, range] the devices' inputs are clipped to (privacy.secure_aggregation.range, or
// what the input must carry): with DP, the clip plus kNoiseSpread standard deviations of a device's
// noise (privacy.dp placement distributed or local), so that a coordinate is cut with probability
// below 2.6e-12 (erfc(7 / sqrt 2)); without DP, kRangeWithoutDp. An input error naming the key when a
// range set by the scenario is below the clip and the noise's spread: it would cut the noise the
// accountant charges (docs/explanation/secure-aggregation.md, "The range").
inline constexpr double kNoiseSpread = 7;
inline constexpr double kRangeWithoutDp = 10;
double secure_input_range(const scenario::Scenario& scenario);

// The protocol's settings for a round of `participants` devices (threshold and SecAgg+ degree resolved,
// the fixed point's scale the largest whose sum fits). An input error naming the key when the scenario's
// settings cannot hold that many participants.
struct SecureSettings {
  privacy::secagg::Config config;
  privacy::secagg::FixedPoint fixed_point;
};
SecureSettings secure_settings(const scenario::Scenario& scenario, size_t participants, int64_t vector_length);

class SecureRound {
 public:
  // `real`: run the cryptography on the devices' updates; otherwise sizes and counts only.
  SecureRound(const scenario::Scenario& scenario, std::vector<size_t> participants, int64_t vector_length,
              uint64_t seed, bool real);
  ~SecureRound();

  // Device `device`'s answer to the aggregator's message of `phase` (none for advertise_keys); `input` is
  // its update (masked_input, real runs). `flops` is set to what it computed.
  ProtocolMessage answer(size_t device, Phase phase, const ProtocolMessage& from_server, std::span<const float> input,
                         double& flops);
  // An answer that reached the aggregator.
  void receive(Phase phase, size_t device, const ProtocolMessage& message);
  // Ends the phase: who answered, the next messages or the failure.
  PhaseOutcome close(Phase phase);

  // Once unmasking closed, in real runs: the decoded sum of U3's updates.
  const std::vector<double>& sum() const { return sum_; }
  // Input values the devices' quantisation cut to [-range, range] so far (real runs).
  int64_t clipped_coordinates() const { return clipped_; }

 private:
  std::vector<uint32_t> live_neighbours(uint32_t u, const std::vector<uint32_t>& set) const;
  std::string below_threshold(const std::vector<uint32_t>& live) const;
  std::string unmask_failure() const;
  double unmask_flops() const;
  int64_t answer_bytes(uint32_t u, Phase phase) const;
  int64_t next_bytes(uint32_t u, Phase closed) const;

  SecureSettings settings_;
  std::vector<uint32_t> participants_;
  privacy::secagg::Neighbours graph_;
  bool real_;
  std::unique_ptr<privacy::secagg::SecAggServer> server_;
  std::map<uint32_t, std::unique_ptr<privacy::secagg::SecAggClient>> clients_;
  std::vector<uint32_t> answered_;                // in the open phase, in arrival order
  std::array<std::vector<uint32_t>, 5> sets_;     // U1 ... U5, sorted
  std::vector<double> sum_;
  int64_t clipped_ = 0;
};

}  // namespace edgetrain::backend
