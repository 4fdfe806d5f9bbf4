// See topology.hpp.
#include "sim/topology/topology.hpp"

#include <simgrid/s4u.hpp>

#include "sim/aggregate/async_aggregator.hpp"
#include "sim/aggregate/sync_aggregator.hpp"
#include "sim/core/actor_guard.hpp"
#include "sim/topology/gossip.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

std::optional<backend::DeltaLink> delta_link(const scenario::Scenario& scenario) {
  if (!scenario.topology.hierarchical()) return std::nullopt;
  return backend::DeltaLink{scenario.topology.site_compression, "topology.site_compression", "site-uplink"};
}

Topology start_topology(RunState& state, const PlatformHosts& hosts) {
  if (state.scenario.topology.hierarchical()) return start_hierarchical(state, hosts);
  if (state.scenario.topology.gossip()) return start_gossip(state, hosts);
  return start_flat(state, hosts);
}

Topology start_flat(RunState& state, const PlatformHosts& hosts) {
  Topology t;
  t.root = hosts.server;
  Inbox& inbox = *t.inboxes.emplace_back(std::make_unique<Inbox>(hosts.server, "server"));
  std::vector<size_t> members(state.scenario.devices.size());
  for (size_t i = 0; i < members.size(); ++i) {
    members[i] = i;
    state.upstream[i] = &inbox;
    state.lanes[i] = inbox.connect(state.scenario.devices[i].name);
    state.couriers[i]->start(hosts.server, hosts.devices[i], state.links);
  }
  backend::ModelStore& store = *t.stores.emplace_back(state.backend.make_store(members));
  t.evaluated = &backend::role<backend::ModelEvaluation>(store);
  // SimGrid copies actor functors, so the actor's copies share one aggregator.
  sg4::ActorPtr server;
  if (state.mode.applies_on_arrival()) {
    auto aggregator = std::make_shared<AsyncAggregator>(state, inbox, members, store);
    server = sg4::Actor::create("server", hosts.server, guarded(state, [aggregator] { (*aggregator)(); }));
  } else {
    auto aggregator = std::make_shared<SyncAggregator>(state, inbox, members, store);
    server = sg4::Actor::create("server", hosts.server, guarded(state, [aggregator] { (*aggregator)(); }));
  }
  inbox.set_owner(server);
  return t;
}

}  // namespace edgetrain::sim
