// What the memory estimate needs of a gossip run before the topology is asked for its share
// (core/run.cpp): the edges of its graph.
#pragma once

#include "scenario/scenario.hpp"
#include "sim/core/platform.hpp"

namespace edgetrain::sim {

// The edges of the run's graph (gossip_edge_count), known before it is built.
double gossip_edges(const scenario::Scenario& scenario, const PlatformHosts& hosts);

}  // namespace edgetrain::sim
