// The parameter server of mode async (Hardy et al.'s setting): it answers each pull with the
// dense current model and its update counter j, and applies each push as it arrives, in
// simulated arrival order, after decoding it and charging its apply cost on the server host
// (so a busy server queues pushes). A push computed at version j and applied at version i has
// staleness d = i - j; its step is scaled by training.staleness_lr (staleness.hpp), and with
// training.max_staleness a staler push is dropped and counted. One get is always posted per
// device, so uploads proceed in parallel and contend on shared links.
#pragma once

#include "learn/sgd.hpp"
#include "sim/messages.hpp"
#include "sim/run_state.hpp"
#include "sim/staleness.hpp"
#include "sim/uplink.hpp"

namespace edgetrain::sim {

class AsyncServer {
 public:
  explicit AsyncServer(RunState& state);
  void operator()();

 private:
  void apply(const GradientMessage& push);
  RunState& state_;
  learn::Sgd sgd_;
  UplinkDecoder decoder_;
  StalenessRule rule_;
  double lr_;  // the server's step size (aggregation.hpp)
};

}  // namespace edgetrain::sim
