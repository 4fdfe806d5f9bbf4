// A device actor: receives the model from its upstream aggregator (pulling it first when the
// aggregator applies updates on arrival), takes mini-batches from its partition or its stream
// buffer, has its learner compute each step (on the worker pool, while the simulated compute of
// step FLOPs / host speed runs), and sends the encoded update upstream. It never sees a tensor:
// payloads are its learner's (backend/learner.hpp), and only their sizes matter here. Its time
// is split exactly into compute_s, comm_s (its own transfers), wait_s (idle) and offline_s: see
// time_ledger.hpp.
//
// Faults: a transfer cut by a link outage is counted as failed (RunState::count_failed) and
// the device tries again after faults.retry_s (a population's device waits that on its slot). A
// device switched off is killed with its host and started anew when the host comes back
// (fault_injector.hpp); what it must remember across restarts lives in the RunState and in its
// learner.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/inbox.hpp"
#include "sim/core/messages.hpp"
#include "sim/core/run_state.hpp"

namespace edgetrain::sim {

class DeviceActor {
 public:
  // Forever: a device on a host of its own, from the start of the run (or its restart after a fault).
  // OneUpdate: a device of a population placed on a host slot for one round (host_slots.hpp).
  enum class Lifetime { Forever, OneUpdate };
  DeviceActor(RunState& state, size_t index, Inbox& upstream, Lifetime lifetime = Lifetime::Forever)
      : state_(state), index_(index), upstream_(upstream), lifetime_(lifetime) {}
  void operator()();

 private:
  // One update: (pull and) receive the model, train, push.
  void update_once(TimeLedger& ledger);
  // A transfer of the update failed (a link fault): the update is dropped and counted, and the device
  // waits; it tries again after retry_s().
  void fail_update(TimeLedger& ledger);
  double retry_s() const { return state_.scenario.faults ? state_.scenario.faults->retry_s : 1.0; }
  // Runs the update's steps on the received model; fills `message`'s sample counts and loss.
  void train(const ModelMessage& model, UpdateMessage& message, TimeLedger& ledger);
  // The own-stream samples of the next step: from the static partition, or from the stream
  // buffer after waiting (wait_s, data_wait_s) until enough samples arrived.
  std::vector<int64_t> next_batch(int64_t batch_size, TimeLedger& ledger);
  RunState& state_;
  size_t index_;
  Inbox& upstream_;
  Lifetime lifetime_;
};

}  // namespace edgetrain::sim
