// Split learning's exchange in each local step (strategy.kind splitfed, docs/explanation/strategies.md):
// the device computes its part's forward pass, sends the activations at the cut to its aggregator's host,
// the server runs its part forward and backward there (an execution on that host, so the devices' server
// work shares its cores), sends the activations' gradient back, and the device runs its part's backward.
// The two transfers are host-to-host communications the device actor drives itself: the server keeps no
// per-device protocol state, so a fault that cuts a transfer (simgrid::NetworkFailureException) leaves
// nothing behind, and the device's update fails as any cut transfer fails it (device_actor.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/core/run_state.hpp"
#include "strategy/split_plan.hpp"

namespace simgrid::s4u {
class Host;
}

namespace edgetrain::sim {

// One step of `samples` on device `device`, whose part costs `device_flops` (its step charge), with the
// server on `server`: forward, exchange, backward, each charged to the device's ledger (compute; comm for
// the transfers; wait while the server computes). Bytes are counted both ways (bytes_up, bytes_down, links).
void split_step(RunState& state, size_t device, simgrid::s4u::Host* server, const strategy::SplitPlan& plan,
                double device_flops, int64_t samples, TimeLedger& ledger);

}  // namespace edgetrain::sim
