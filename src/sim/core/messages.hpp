// Typed messages between the devices and their aggregator; a topology declares the messages between
// its own aggregators in its file (sim/topology/). Every message derives from Message, carries its
// simulated size, and is received as the type its receiver expects: another type is a loud
// ProtocolError, never a reinterpretation. The receiver takes ownership (SimGrid passes the pointer,
// not a copy). Payloads are the back-end's, opaque here.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#include "backend/learner.hpp"
#include "backend/secure_round.hpp"

namespace simgrid::s4u {
class Host;
}

namespace edgetrain::sim {

struct Message {
  virtual ~Message() = default;
  virtual const char* kind() const = 0;
  int64_t bytes = 0;                   // simulated size on the wire, header included
  simgrid::s4u::Host* from = nullptr;  // the sender's host
};

// Aggregator -> device: the current model.
struct ModelMessage : Message {
  const char* kind() const override { return "model"; }
  int64_t round = 0;
  backend::ModelPayload model;
  double posted_at_s = 0;  // when the aggregator posted the send
  // Data injection (ScaDLES): how many samples of this step's batch the device shares, and
  // the samples shared by others that it trains on in addition to its own batch.
  int64_t share_count = 0;
  std::vector<int64_t> injected;
  int64_t injected_bytes = 0;  // wire size of the injected samples (included in `bytes`)
  // Secure aggregation: the round's protocol, which the device runs around its training, and its draw (a
  // round that failed is run again on the same model version, with new keys and masks).
  std::shared_ptr<backend::SecureRound> secure;
  int64_t secure_draw = 0;
};

// Device -> aggregator: one update (a gradient, or a model delta in mode local-sgd).
struct UpdateMessage : Message {
  const char* kind() const override { return "update"; }
  size_t device = 0;  // index in the scenario's device list
  int64_t round = 0;  // the model version it was computed from
  backend::UpdatePayload update;
  double loss = 0;
  int64_t samples = 0;              // samples the update was computed on (own batches + injected)
  int64_t own_samples = 0;          // of which from the device's own partition or stream
  int64_t dense_bytes = 0;          // what the same message would weigh with a dense fp32 update
  std::vector<int64_t> shared;      // dataset indices shared for injection (their bytes are included)
  int64_t shared_sample_bytes = 0;  // wire size of one shared sample
  backend::ProtocolMessage masked;  // secure aggregation: the masked input sent in place of the update
};

// Secure aggregation (privacy.secure_aggregation), both ways: a phase's message between a device and
// its aggregator. From the aggregator, `abort` ends the device's part in the round (it failed, or the
// device's answer came too late).
struct SecureMessage : Message {
  const char* kind() const override { return "secure aggregation"; }
  size_t device = 0;
  int64_t round = 0;  // the protocol's draw (ModelMessage::secure_draw)
  backend::Phase phase = backend::Phase::advertise_keys;
  backend::ProtocolMessage message;
  bool abort = false;
};

// Device -> aggregator in asynchronous aggregation: asks for the current model (a bare header).
struct PullRequest : Message {
  const char* kind() const override { return "pull"; }
  size_t device = 0;
};

class ProtocolError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// `message` as the type its receiver expects; a ProtocolError naming both types otherwise.
template <class T>
std::unique_ptr<T> expect(std::unique_ptr<Message> message, const std::string& receiver) {
  if (auto* typed = dynamic_cast<T*>(message.get())) {
    (void)message.release();
    return std::unique_ptr<T>(typed);
  }
  throw ProtocolError(receiver + " expected a " + T().kind() + " message, got " +
                      (message ? std::string("a ") + message->kind() + " message" : std::string("nothing")));
}

}  // namespace edgetrain::sim
