// See device_round.hpp.
#include "sim/core/device_round.hpp"

#include <algorithm>

#include "sim/core/run_state.hpp"
#include "sim/core/wire.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

void account_model_received(RunState& state, size_t device, const ModelMessage& model, const sg4::Host* at) {
  report::DeviceRecord& record = state.devices[device];
  DeviceLiveness& live = state.live[device];
  TimeLedger& ledger = state.ledgers[device];
  const double received = sg4::Engine::get_clock();
  // The transfer began when both ends were posted; before that the device was idle, out of the rounds
  // since the first round that went on without it.
  const double posted = std::min(received, std::max(model.posted_at_s, ledger.mark()));
  if (live.left_out_since_s >= 0) {
    record.unselected_s += std::max(0.0, posted - std::max(ledger.mark(), live.left_out_since_s));
    live.left_out_since_s = -1;
  }
  ledger.charge(TimeLedger::Bucket::Wait, posted);
  ledger.charge(TimeLedger::Bucket::Comm, received);
  state.count_download(device, model.from, at, model.bytes);
}

void size_update(const RunState& state, size_t device, UpdateMessage& message) {
  const DeviceStream* stream = state.streams[device].get();
  const int64_t shared_sample_bytes = (stream ? stream->sample_bytes() : state.raw_sample_bytes) + kInjectedLabelBytes;
  const int64_t shared_bytes = static_cast<int64_t>(message.shared.size()) * shared_sample_bytes;
  const int64_t extra = state.policies.strategy ? state.policies.strategy->extra_update_bytes() : 0;
  message.bytes = message_bytes(message.update.bytes + shared_bytes + extra);
  // What it would weigh uncompressed: the model, or the part that travels.
  message.dense_bytes = message_bytes(state.backend.cost().dense_update_bytes() + shared_bytes);
  message.shared_sample_bytes = shared_sample_bytes;
}

}  // namespace edgetrain::sim
