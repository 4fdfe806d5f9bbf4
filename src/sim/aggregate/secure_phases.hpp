// The aggregator's side of a secure-aggregation round (privacy.secure_aggregation), inside its sync
// round (sync_rounds.hpp): once the models are out, the two key phases (advertise, share) wait for the
// participants' answers and send each its next message; the masked inputs arrive in the round's update
// loop; then the consistency check and unmasking, and the sum the protocol recovered. A phase closes
// when every participant still in it (on, and not dropped) answered, at
// privacy.secure_aggregation.phase_timeout_s, or at stop.sim_time_s; those that did not answer are told
// to leave (an abort), and a phase that leaves too few fails the round. Each phase's time and bytes go
// to rounds.csv.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend/secure_round.hpp"
#include "report/run_record.hpp"
#include "sim/core/inbox.hpp"
#include "sim/core/messages.hpp"
#include "sim/core/run_state.hpp"

namespace edgetrain::sim {

class SecurePhases {
 public:
  // An update of another round arriving meanwhile, for the round to count as late.
  using LateUpdate = std::function<void(std::unique_ptr<UpdateMessage>)>;
  // A round with fewer participants than the protocol needs fails at once (failure()).
  // `draw`: the round's draw, unique to this run of the protocol (its seed and its messages' tag).
  SecurePhases(RunState& state, Inbox& inbox, int64_t draw, std::vector<size_t> participants, double started);
  const std::shared_ptr<backend::SecureRound>& protocol() const { return protocol_; }

  // Advertise and share keys; false when the round failed or stop.sim_time_s came (ended()).
  bool key_phases(double deadline, const LateUpdate& late);
  // The masked input phase: whether `device`'s update belongs in the sum, and taking it.
  bool expects(size_t device) const;
  void masked(const UpdateMessage& update);
  // Closes the masked inputs; the consistency check and unmasking, the aggregator's unmasking charged on
  // its host. False when the round failed or ended.
  bool closing_phases(double deadline, const LateUpdate& late);
  bool ended() const { return ended_; }
  const std::string& failure() const { return failure_; }

  // The phases' record for rounds.csv (failed: the phase that failed).
  report::SecureRoundRecord record() const;

 private:
  // Waits for the answers of `phase` (those asked that are still in it) until all came, its timeout or
  // `deadline`; then closes it, sends the next messages, and tells the rest to leave.
  bool collect(backend::Phase phase, double deadline, const LateUpdate& late);
  bool close(backend::Phase phase);
  // Posts `message` to `device`, its bytes counted in `phase`.
  void send(size_t device, std::unique_ptr<SecureMessage> message, backend::Phase phase);
  void abort(size_t device, backend::Phase phase);

  RunState& state_;
  Inbox& inbox_;
  int64_t draw_;
  std::shared_ptr<backend::SecureRound> protocol_;
  std::vector<size_t> asked_;  // who the open phase's message went to
  std::vector<bool> answered_;  // by device index, in the open phase
  double opened_;              // when the open phase began
  bool ended_ = false;
  std::string failure_;
  report::SecureRoundRecord record_;
};

}  // namespace edgetrain::sim
