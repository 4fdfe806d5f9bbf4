// The flat topology (topology.kind flat): one aggregator on the server host serving every device,
// in synchronous rounds or applying updates on arrival (training.mode). What crossed into and out
// of the server is what the devices sent and received.
#include <simgrid/s4u.hpp>

#include "sim/aggregate/async_aggregator.hpp"
#include "sim/aggregate/sync_aggregator.hpp"
#include "sim/core/activity_fleet.hpp"
#include "sim/core/actor_guard.hpp"
#include "sim/topology/topology.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {
namespace {

class Flat : public Topology {
 public:
  std::vector<sg4::Host*> upstream_hosts(const sg4::Engine&, const scenario::Scenario& scenario,
                                         sg4::Host* server) override {
    return std::vector<sg4::Host*>(scenario.devices.size(), server);
  }

  Root start(RunState& state, const PlatformHosts& hosts) override {
    inbox_ = std::make_unique<Inbox>(hosts.server, "server");
    std::vector<size_t> members(state.scenario.devices.size());
    for (size_t i = 0; i < members.size(); ++i) {
      members[i] = i;
      state.upstream[i] = inbox_.get();
    }
    // A lane and a courier per host a device runs on: its own, or a population's host slots (on the
    // activity path, a lane only: fleet drivers bring the models).
    for (size_t k = 0; k < state.lanes.size(); ++k) {
      sg4::Host* host = state.slots ? state.slots->host(k) : hosts.devices[k];
      state.lanes[k] = inbox_->connect(state.slots ? host->get_name() : state.scenario.devices[k].name);
      if (!state.fleet) state.couriers[k]->start(hosts.server, host, state.links);
    }
    if (state.fleet) inbox_->set_settling([fleet = state.fleet] { return fleet->settled(); });
    store_ = state.backend.make_store(members);
    // SimGrid copies actor functors, so the actor's copies share one aggregator. Fleet drivers still in flight
    // when it ends (a stop on simulated time) end themselves before SimGrid kills the daemons (actor_guard.hpp).
    const auto start = [&](auto aggregator) {
      return sg4::Actor::create("server", hosts.server, guarded(state, [aggregator] {
                                  (*aggregator)();
                                  tell_self_ending();
                                }));
    };
    inbox_->set_owner(state.mode.applies_on_arrival()
                          ? start(std::make_shared<AsyncAggregator>(state, *inbox_, members, *store_))
                          : start(std::make_shared<SyncAggregator>(state, *inbox_, members, *store_)));
    return {hosts.server, &backend::role<backend::ModelEvaluation>(*store_)};
  }

  void summarize(const RunState& state, nlohmann::json& summary) const override {
    summary["bytes_to_server"] = state.bytes_up;
    summary["bytes_from_server"] = state.bytes_down;
  }

 private:
  std::unique_ptr<Inbox> inbox_;
  std::unique_ptr<backend::ModelStore> store_;
};

}  // namespace

std::unique_ptr<Topology> make_flat(const scenario::Scenario&) { return std::make_unique<Flat>(); }

}  // namespace edgetrain::sim
