// The graph of a gossip run (topology.kind gossip): which devices exchange models, and the
// Metropolis-Hastings weights each device averages with, W_ij = 1 / (1 + max(d_i, d_j)) for a
// neighbour j and W_ii = 1 - sum_j W_ij: symmetric and doubly stochastic, so the devices' mean
// model is what plain averaging would give; a complete graph gives W = 1/n everywhere (exact
// averaging). Pure C++ (no SimGrid): gossip.cpp checks the routes of its edges.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "util/input_error.hpp"

namespace edgetrain::sim {

class GossipGraphError : public std::runtime_error, public util::InputError {
 public:
  using std::runtime_error::runtime_error;
};

struct GossipGraph {
  std::vector<std::vector<size_t>> neighbours;  // per device, sorted, without itself
  size_t size() const { return neighbours.size(); }
  // Metropolis-Hastings weight of j's model in i's average (j a neighbour of i, or i itself).
  double weight(size_t i, size_t j) const;
  // Every edge once, as (i, j) with i < j, in order.
  std::vector<std::pair<size_t, size_t>> edges() const;
  bool connected() const;
};

// The r x c grid of a torus of n devices: r the largest divisor of n with r <= sqrt(n). Throws for
// a prime n > 3 (a 1 x n torus is a ring: say so).
std::pair<size_t, size_t> torus_shape(size_t n);

// The graph `kind` (topology.graph) over n devices. random-k draws `degree` links per device from
// `seed`; platform-neighbours links the devices of the same site (`sites`, per device) and chains
// the sites by their first devices (in order of first appearance). Throws GossipGraphError (one
// line naming the key) for a graph that cannot be built or is not connected.
GossipGraph make_gossip_graph(const std::string& kind, size_t n, int64_t degree, uint64_t seed,
                              const std::vector<std::string>& sites);

// The number of edges make_gossip_graph would build, without building it (the memory estimate
// needs it first: a complete graph of 10^5 devices has 5 x 10^9): exact for ring, torus, complete
// and platform-neighbours, an upper bound (n x degree) for random-k.
double gossip_edge_count(const std::string& kind, size_t n, int64_t degree, const std::vector<std::string>& sites);

}  // namespace edgetrain::sim
