// Decentralised gossip (topology.kind gossip, D-PSGD in the diffusion adapt-then-combine order):
// no server. Each device has a peer on its own host, an aggregator role with an inbox and a model
// store over the one member {the device}; the device actor is unchanged: its upstream is its
// peer's inbox and its courier runs on its own host (same-host transfers: SimGrid's loopback).
// Iteration t of peer i: it sends x_i to its device, which trains (one gradient, or local-sgd's
// local steps and delta) and pushes; the peer applies the update (adapt: x_i <- x_i - lr g_i),
// sends x_i to every neighbour's peer (an ExchangeMessage of the dense model, a real transfer
// over the platform's links) and replaces x_i by the Metropolis-Hastings average of its own and
// its neighbours' iteration-t models (combine, gossip_graph.hpp). A neighbour's models are taken
// in order: a fast peer runs at most one iteration ahead of its neighbours.
//
// The run's rounds are the iterations every peer completed; a monitor actor on the server host
// (the only non-daemon) ends the run at the stop conditions. The observer evaluates the devices'
// average model (GossipAverage) and the spread of the models around it.
#pragma once

#include "sim/topology/gossip_graph.hpp"
#include "sim/topology/topology.hpp"

namespace edgetrain::sim {

// The scenario's gossip graph over its devices; every edge's two hosts checked for a route both
// ways (PlatformError naming the pair).
GossipGraph gossip_graph(const scenario::Scenario& scenario, const PlatformHosts& hosts);

// The edges of the run's graph (gossip_edge_count), known before it is built.
double gossip_edges(const scenario::Scenario& scenario, const PlatformHosts& hosts);

// One peer per device and the monitor; connects every device to its peer.
Topology start_gossip(RunState& state, const PlatformHosts& hosts);

}  // namespace edgetrain::sim
