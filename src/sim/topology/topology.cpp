// See topology.hpp. Each kind's factory is defined in its own file.
#include "sim/topology/topology.hpp"

#include <stdexcept>

namespace edgetrain::sim {

std::unique_ptr<Topology> make_flat(const scenario::Scenario& scenario);
std::unique_ptr<Topology> make_hierarchical(const scenario::Scenario& scenario);
std::unique_ptr<Topology> make_gossip(const scenario::Scenario& scenario);

const std::vector<TopologyKind>& topology_kinds() {
  static const std::vector<TopologyKind> kinds = {
      {"flat", make_flat},
      {"hierarchical", make_hierarchical},
      {"gossip", make_gossip},
  };
  return kinds;
}

std::unique_ptr<Topology> make_topology(const scenario::Scenario& scenario) {
  for (const TopologyKind& kind : topology_kinds()) {
    if (scenario.topology.kind == kind.name) return kind.make(scenario);
  }
  throw std::logic_error("topology.kind \"" + scenario.topology.kind + "\" is not in the table of topologies");
}

}  // namespace edgetrain::sim
