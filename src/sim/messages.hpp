// Typed messages between the server and the devices. Each carries its simulated size; the
// receiver takes ownership (SimGrid passes the pointer, not a copy).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "sim/uplink.hpp"

namespace edgetrain::sim {

// Server -> device: the current global model.
struct ModelMessage {
  int64_t round = 0;
  std::shared_ptr<const std::vector<float>> params;  // shared snapshot: devices only read it
  double posted_at_s = 0;                            // when the server posted the send
  int64_t bytes = 0;                                 // simulated size of this message
  // Data injection (ScaDLES): how many samples of this step's batch the device shares, and
  // the samples shared by others that it trains on in addition to its own batch.
  int64_t share_count = 0;
  std::vector<int64_t> injected;
  int64_t injected_bytes = 0;  // wire size of the injected samples (included in `bytes`)
  // Downlink compression: the encoded delta to the device's copy (absent: the dense model).
  std::optional<std::vector<uint8_t>> delta;
};

// Device -> server: one update (a gradient, or a model delta in mode local-sgd).
struct GradientMessage {
  size_t device = 0;  // index in the scenario's device list
  int64_t round = 0;
  int64_t step = 0;      // the device's step counter (compression context)
  EncodedUpdate update;  // the real encoding of the gradient; the server decodes it
  double loss = 0;
  int64_t samples = 0;      // samples the update was computed on (own batches + injected)
  int64_t own_samples = 0;  // of which from the device's own partition or stream
  int64_t bytes = 0;
  int64_t dense_bytes = 0;  // what the same message would weigh with a dense fp32 update
  std::vector<int64_t> shared;      // dataset indices shared for injection (their bytes are included)
  int64_t shared_sample_bytes = 0;  // wire size of one shared sample
};

// Device -> server in mode async: a pull request (push empty) or a push. A pull request is a
// bare header on the wire.
struct AsyncInbound {
  size_t device = 0;
  std::unique_ptr<GradientMessage> push;  // null: a pull request
};

// Order among messages delivered at the same simulated instant (see earliest_delivered): by device
// index, and a device's push before its pull (it posts the pull only once the push is delivered).
inline size_t arrival_rank(const GradientMessage& m) { return 2 * m.device; }
inline size_t arrival_rank(const AsyncInbound& m) { return 2 * m.device + (m.push ? 0 : 1); }

}  // namespace edgetrain::sim
