// A device's side of a secure-aggregation round (privacy.secure_aggregation): before training it
// advertises its keys and shares them, after training its masked input goes as its update, and then it
// signs the survivors and sends the shares that unmask the sum. Each answer is computed by the round's
// protocol (backend/secure_round.hpp), charged as compute on the device's host, and sent to its
// aggregator; each message back comes through its courier. An abort from the aggregator (the round
// failed, or the device answered too late) ends its part.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include "sim/core/messages.hpp"
#include "sim/core/run_state.hpp"

namespace edgetrain::sim {

class DeviceSecureRound {
 public:
  DeviceSecureRound(RunState& state, size_t device, Inbox& upstream, const ModelMessage& model, TimeLedger& ledger);
  // Advertise keys, then share keys: false when the device is out of the round.
  bool key_phases();
  // Its update's masked input, written into `message` (its wire size too).
  void masked_input(UpdateMessage& message);
  // After the masked input was delivered: the consistency check and unmasking.
  void closing_phases();

 private:
  // The aggregator's next message for this round; nothing on an abort.
  std::optional<backend::ProtocolMessage> await();
  // Computes the answer of `phase` to `from_server` (charged as compute) and sends it upstream.
  void answer(backend::Phase phase, const backend::ProtocolMessage& from_server);
  void leave();

  RunState& state_;
  size_t device_;
  Inbox& upstream_;
  int64_t draw_;
  std::shared_ptr<backend::SecureRound> protocol_;
  TimeLedger& ledger_;
  backend::ProtocolMessage from_server_;  // the last message the aggregator sent
};

}  // namespace edgetrain::sim
