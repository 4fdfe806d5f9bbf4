// A device actor: receives the global model (pulling it first when the server applies updates
// on arrival), takes mini-batches from its partition or its stream buffer, runs real LibTorch
// forward/backward passes on them, is charged step FLOPs / host speed of simulated time per
// step, and sends its update to the server: the gradient, or in mode local-sgd the model delta
// after training.local_steps local SGD steps. Its time is split exactly into compute_s,
// comm_s (its own transfers), wait_s (idle) and offline_s: see time_ledger.hpp.
//
// Faults: a transfer cut by a link outage is counted as failed (RunState::count_failed) and
// the device tries again after faults.retry_s. A device switched off is killed with its host
// and started anew when the host comes back (fault_injector.hpp); what it must remember
// across restarts lives in the RunState.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/aggregation.hpp"
#include "sim/messages.hpp"
#include "sim/run_state.hpp"

namespace edgetrain::sim {

class DownlinkReplica;

class DeviceActor {
 public:
  DeviceActor(RunState& state, size_t index)
      : state_(state),
        index_(index),
        on_arrival_(applies_on_arrival(state.scenario.training)),
        local_sgd_(state.scenario.training.mode == "local-sgd") {}
  void operator()();
  static std::string mailbox_name(const std::string& device) { return "device/" + device; }

 private:
  // One update: (pull and) receive the model, train, push. `replica`: the device's own model
  // copy under downlink compression (null otherwise).
  void update_once(TimeLedger& ledger, DownlinkReplica* replica);
  // Trains on `params` (the received model, or the replica); returns the update to push (not
  // yet encoded), and fills `message`'s sample counts, loss and shared samples.
  std::vector<float> train(const std::vector<float>& params, const ModelMessage& model, GradientMessage& message,
                           TimeLedger& ledger);
  // The own-stream samples of the next step: from the static partition, or from the stream
  // buffer after waiting (wait_s, data_wait_s) until enough samples arrived.
  std::vector<int64_t> next_batch(int64_t batch_size, TimeLedger& ledger);
  RunState& state_;
  size_t index_;
  bool on_arrival_;  // the server applies updates on arrival: pull the model first
  bool local_sgd_;   // push a model delta after local steps, not a gradient
};

}  // namespace edgetrain::sim
