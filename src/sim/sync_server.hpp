// The aggregator of mode sync: each round it sends the global model to every device,
// receives one gradient from each (one get_async per device, so uploads proceed in parallel
// and contend on shared links), averages them in device order, is charged the aggregation
// and update FLOPs on its host, and applies SGD to the global model (aggregation.hpp says how
// gradients are weighted and the learning rate scaled in each mode).
#pragma once

#include <memory>
#include <vector>

#include "learn/sgd.hpp"
#include "sim/aggregation.hpp"
#include "sim/downlink.hpp"
#include "sim/injection.hpp"
#include "sim/messages.hpp"
#include "sim/run_state.hpp"

namespace edgetrain::sim {

class SyncServer {
 public:
  explicit SyncServer(RunState& state);
  void operator()();
  // FLOPs charged per round: summing n gradients, scaling, and the SGD update (5 per param).
  static double apply_flops(int64_t params, int64_t gradients) {
    return static_cast<double>(params) * static_cast<double>(gradients + 5);
  }

 private:
  RunState& state_;
  learn::Sgd sgd_;
  Injection injection_;
  UplinkDecoder decoder_;
  std::vector<DownlinkEncoder> downlinks_;  // per device, when the downlink is compressed
};

}  // namespace edgetrain::sim
