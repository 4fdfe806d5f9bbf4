// The aggregators of a run and how the devices reach them: which inbox each device sends its
// updates to (its upstream and its lane there), where its courier brings models from, and the
// model store the observer evaluates. Every layout leaves the device actor as it is: a device
// knows only its upstream inbox, its lane and its courier (the seam: README, "How a run is built:
// the learning seam").
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "backend/backend.hpp"
#include "backend/model_store.hpp"
#include "sim/core/inbox.hpp"
#include "sim/core/platform.hpp"
#include "sim/core/run_state.hpp"
#include "sim/topology/site_record.hpp"

namespace simgrid::s4u {
class Host;
}

namespace edgetrain::sim {

struct Topology {
  std::vector<std::unique_ptr<Inbox>> inboxes;
  std::vector<std::unique_ptr<backend::ModelStore>> stores;
  backend::ModelEvaluation* evaluated = nullptr;           // the global model: what the observer evaluates
  simgrid::s4u::Host* root = nullptr;                      // the host of the root aggregator (observer, fault actors)
  std::vector<std::unique_ptr<DownlinkCourier>> couriers;  // aggregators' own downlinks (the cloud's to sites)
  std::shared_ptr<HierarchyRecord> hierarchy;              // hierarchical topologies: what the sites did (else null)
};

// The link the site aggregators send their deltas over (hierarchical topologies), else none.
std::optional<backend::DeltaLink> delta_link(const scenario::Scenario& scenario);

// Creates the aggregators' actors and connects every device (state.upstream, state.lanes, its
// courier started). The root aggregator's actor is not a daemon: the run ends when it returns.
Topology start_topology(RunState& state, const PlatformHosts& hosts);

// gossip.hpp: one peer per device, no server (topology.kind gossip).

// One aggregator on the server host serving every device: synchronous rounds, or updates applied
// on arrival (training.mode).
Topology start_flat(RunState& state, const PlatformHosts& hosts);

// Devices send to their site's aggregator, the sites to the cloud on the server host: hierarchical.hpp.
Topology start_hierarchical(RunState& state, const PlatformHosts& hosts);

}  // namespace edgetrain::sim
