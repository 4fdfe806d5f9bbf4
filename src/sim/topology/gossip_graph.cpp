// See gossip_graph.hpp.
#include "sim/topology/gossip_graph.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "util/seed.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::sim {

double GossipGraph::weight(size_t i, size_t j) const {
  auto w = [this](size_t a, size_t b) {
    return 1.0 / (1.0 + static_cast<double>(std::max(neighbours[a].size(), neighbours[b].size())));
  };
  if (i != j) return w(i, j);
  double rest = 1.0;
  for (size_t k : neighbours[i]) rest -= w(i, k);
  return rest;
}

std::vector<std::pair<size_t, size_t>> GossipGraph::edges() const {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < neighbours.size(); ++i)
    for (size_t j : neighbours[i])
      if (i < j) out.emplace_back(i, j);
  return out;
}

bool GossipGraph::connected() const {
  if (neighbours.empty()) return true;
  std::vector<bool> seen(neighbours.size(), false);
  std::vector<size_t> todo{0};
  seen[0] = true;
  size_t reached = 1;
  while (!todo.empty()) {
    const size_t i = todo.back();
    todo.pop_back();
    for (size_t j : neighbours[i]) {
      if (seen[j]) continue;
      seen[j] = true;
      ++reached;
      todo.push_back(j);
    }
  }
  return reached == neighbours.size();
}

std::pair<size_t, size_t> torus_shape(size_t n) {
  size_t r = 1;
  for (size_t d = 1; d * d <= n; ++d)
    if (n % d == 0) r = d;
  if (r == 1 && n > 3) {
    throw GossipGraphError("topology.graph: a torus of " + std::to_string(n) + " devices would be 1 x " +
                           std::to_string(n) +
                           " (a prime number of devices): use graph ring, or another number of devices");
  }
  return {r, n / r};
}

namespace {

// Undirected adjacency from a set of edges (self-loops dropped).
GossipGraph from_edges(size_t n, const std::set<std::pair<size_t, size_t>>& edges) {
  GossipGraph g;
  g.neighbours.resize(n);
  for (const auto& [a, b] : edges) {
    if (a == b) continue;
    g.neighbours[a].push_back(b);
    g.neighbours[b].push_back(a);
  }
  for (auto& v : g.neighbours) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  return g;
}

void link(std::set<std::pair<size_t, size_t>>& edges, size_t a, size_t b) {
  if (a != b) edges.insert({std::min(a, b), std::max(a, b)});
}

constexpr int kRandomDraws = 100;

GossipGraph random_k(size_t n, int64_t degree, uint64_t seed) {
  if (degree > static_cast<int64_t>(n) - 1) {
    throw GossipGraphError("topology.degree: " + std::to_string(degree) + " is more than the " + std::to_string(n - 1) +
                           " other devices");
  }
  const auto k = static_cast<size_t>(degree);
  for (int draw = 0; draw < kRandomDraws; ++draw) {
    std::mt19937_64 rng(util::derive_seed(seed, "gossip-graph", static_cast<uint64_t>(draw)));
    std::uniform_int_distribution<size_t> other(0, n - 2);
    std::set<std::pair<size_t, size_t>> edges;
    for (size_t i = 0; i < n; ++i) {
      std::set<size_t> picked;
      while (picked.size() < k) {
        const size_t j = other(rng);
        picked.insert(j < i ? j : j + 1);  // uniform over the others
      }
      for (size_t j : picked) link(edges, i, j);
    }
    GossipGraph g = from_edges(n, edges);
    if (g.connected()) return g;
  }
  throw GossipGraphError("topology.degree: " + std::to_string(degree) +
                         " links per device gave no connected graph in " + std::to_string(kRandomDraws) +
                         " seeded draws: use a larger degree");
}

}  // namespace

double gossip_edge_count(const std::string& kind, size_t n, int64_t degree, const std::vector<std::string>& sites) {
  const auto pairs = [](double m) { return m * (m - 1) / 2; };
  const auto count = static_cast<double>(n);
  if (kind == "ring") return n < 2 ? 0 : n == 2 ? 1 : count;
  if (kind == "complete") return pairs(count);
  if (kind == "random-k") return count * static_cast<double>(degree);
  if (kind == "torus") {
    if (n < 2) return 0;
    // Each of the r x c devices links down and right, once per distinct neighbour.
    const auto [r, c] = torus_shape(n);
    const auto distinct = [](size_t len) { return len == 1 ? 0.0 : len == 2 ? 0.5 : 1.0; };
    return count * (distinct(r) + distinct(c));
  }
  if (kind == "platform-neighbours") {
    std::map<std::string, double> members;
    for (size_t i = 0; i < n && i < sites.size(); ++i) members[sites[i]] += 1;
    double edges = static_cast<double>(members.size()) - 1;  // the chain of sites
    for (const auto& [site, m] : members) edges += pairs(m);
    return std::max(0.0, edges);
  }
  return 0;
}

GossipGraph make_gossip_graph(const std::string& kind, size_t n, int64_t degree, uint64_t seed,
                              const std::vector<std::string>& sites) {
  std::set<std::pair<size_t, size_t>> edges;
  if (kind == "ring") {
    for (size_t i = 0; i + 1 < n; ++i) link(edges, i, i + 1);
    if (n > 2) link(edges, n - 1, 0);
  } else if (kind == "torus") {
    const auto [r, c] = torus_shape(n);
    for (size_t a = 0; a < r; ++a) {
      for (size_t b = 0; b < c; ++b) {
        link(edges, a * c + b, ((a + 1) % r) * c + b);
        link(edges, a * c + b, a * c + (b + 1) % c);
      }
    }
  } else if (kind == "random-k") {
    return random_k(n, degree, seed);
  } else if (kind == "complete") {
    for (size_t i = 0; i < n; ++i) {
      util::throw_if_stopped("building the gossip graph");
      for (size_t j = i + 1; j < n; ++j) link(edges, i, j);
    }
  } else if (kind == "platform-neighbours") {
    std::map<std::string, std::vector<size_t>> members;
    std::vector<size_t> firsts;  // each site's first device, in order of appearance
    for (size_t i = 0; i < n; ++i) {
      auto& m = members[sites.at(i)];
      if (m.empty()) firsts.push_back(i);
      for (size_t j : m) link(edges, i, j);
      m.push_back(i);
    }
    for (size_t s = 0; s + 1 < firsts.size(); ++s) link(edges, firsts[s], firsts[s + 1]);
  } else {
    throw GossipGraphError("topology.graph: unknown graph \"" + kind + "\"");
  }
  GossipGraph g = from_edges(n, edges);
  if (!g.connected()) throw GossipGraphError("topology.graph: the " + kind + " graph is not connected");
  return g;
}

}  // namespace edgetrain::sim
