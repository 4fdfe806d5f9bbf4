// Where a run's aggregators stand and how the devices reach them. A topology takes part in a run
// through this interface alone, so that the run's set-up and its summary (core/run.cpp) hold no
// branch on its kind: the actors it adds (known before the engine exists), its hosts and routes on
// the platform (PlatformNeeds, core/platform.hpp), what it builds once the memory estimate allows
// the run, the delta link its stores send over, validate's lines about it, its start, and its
// summary.json keys. One file per kind (flat.cpp, hierarchical.cpp, gossip.cpp) and one table
// naming them (topology.cpp). Every kind leaves the device actor as it is: a device knows only its
// upstream inbox, its lane and its courier (the seam: docs/explanation/learning-seam.md).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "backend/model_store.hpp"
#include "scenario/scenario.hpp"
#include "backend/memory_estimate.hpp"
#include "sim/core/platform.hpp"
#include "sim/core/run_state.hpp"

namespace simgrid::s4u {
class Host;
}

namespace edgetrain::sim {

// The root aggregator of a started topology: its host (the observer and the fault actors run
// there) and the model the observer evaluates.
struct Root {
  simgrid::s4u::Host* host = nullptr;
  backend::ModelEvaluation* evaluated = nullptr;
};

class Topology : public PlatformNeeds {
 public:
  // Actors it adds to the devices' two each, at most, known from the scenario alone: before the
  // engine exists, the run decides on stack guard pages from the count (core/run.cpp).
  virtual double extra_actors() const { return 0; }
  // What its own aggregators hold, for the memory estimate (before build).
  virtual backend::TopologyMemory memory(const PlatformHosts&) const { return {}; }
  // Once the memory estimate allowed the run, before any data is loaded: builds what it needs from
  // the platform, and checks it (PlatformError naming the key).
  virtual void build(const PlatformHosts&) {}
  // The link its stores send their model's change over, if it has one (the back-end sizes it and
  // seeds its encoders).
  virtual std::optional<backend::DeltaLink> delta_link() const { return std::nullopt; }
  // validate's lines about it, after the platform's (each ending in a newline; none by default).
  virtual std::string describe() const { return ""; }
  // Creates the aggregators' actors and connects every device (state.upstream, state.lanes, its
  // courier started). The root aggregator's actor is not a daemon: the run ends when it returns.
  // The aggregators' inboxes, stores and couriers are the topology's, until it is destroyed.
  virtual Root start(RunState& state, const PlatformHosts& hosts) = 0;
  // Its summary.json keys once the run is over: what crossed into and out of the server
  // (bytes_to_server, bytes_from_server), and its own.
  virtual void summarize(const RunState& state, nlohmann::json& summary) const = 0;
};

// The one table of kinds: topology.kind and its factory.
struct TopologyKind {
  const char* name;
  std::unique_ptr<Topology> (*make)(const scenario::Scenario& scenario);
};
const std::vector<TopologyKind>& topology_kinds();

// The scenario's topology (a kind of the table: the scenario's schema allows no other).
std::unique_ptr<Topology> make_topology(const scenario::Scenario& scenario);

}  // namespace edgetrain::sim
