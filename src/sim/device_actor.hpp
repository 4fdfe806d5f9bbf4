// A device actor (modes sync, scadles and async): receives the global model, takes a mini-batch from
// its partition or its stream buffer, runs a real LibTorch forward/backward on it, is charged step FLOPs / host speed
// of simulated time, and sends its gradient to the server. Its time is split exactly into
// compute_s, comm_s (its own transfers) and wait_s (idle, waiting for the round): see
// time_ledger.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/run_state.hpp"

namespace edgetrain::sim {

class DeviceActor {
 public:
  DeviceActor(RunState& state, size_t index) : state_(state), index_(index) {}
  void operator()();
  static std::string mailbox_name(const std::string& device) { return "device/" + device; }

 private:
  void loop();
  // Counts a completed upload everywhere it is counted: the device's record (with what dense
  // fp32 would have cost), the fleet total and every link of the route. Counted once, here.
  void uploaded(int64_t bytes, int64_t dense_bytes);
  // The own-stream samples of the next step: from the static partition, or from the stream
  // buffer after waiting (wait_s, data_wait_s) until enough samples arrived.
  std::vector<int64_t> next_batch(int64_t batch_size, TimeLedger& ledger);
  RunState& state_;
  size_t index_;
};

}  // namespace edgetrain::sim
