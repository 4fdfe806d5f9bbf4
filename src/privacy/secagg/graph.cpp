// See graph.hpp.
#include "privacy/secagg/graph.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "util/seed.hpp"

namespace edgetrain::privacy::secagg {

Neighbours build_graph(const Config& config, std::span<const uint32_t> participants, uint64_t seed) {
  std::vector<uint32_t> order(participants.begin(), participants.end());
  std::sort(order.begin(), order.end());
  if (std::adjacent_find(order.begin(), order.end()) != order.end())
    throw std::invalid_argument("secagg graph: a participant is listed twice");
  validate(config, order.size());
  const size_t n = order.size();
  Neighbours graph;
  if (config.kind == Kind::secagg) {
    for (uint32_t u : order) {
      auto& list = graph[u];
      for (uint32_t v : order)
        if (v != u) list.push_back(v);
    }
    return graph;
  }
  // Fisher-Yates from the sorted list: the layout depends on the seed and the set, not on its order.
  for (size_t i = n - 1; i > 0; --i) {
    const size_t j = util::derive_seed(seed, "secagg graph", i) % (i + 1);
    std::swap(order[i], order[j]);
  }
  const size_t k = config.neighbours;
  for (size_t i = 0; i < n; ++i) {
    auto& list = graph[order[i]];
    for (size_t d = 1; d <= k / 2; ++d) {
      list.push_back(order[(i + d) % n]);
      list.push_back(order[(i + n - d) % n]);
    }
    if (k % 2 == 1) list.push_back(order[(i + n / 2) % n]);
    // No neighbour twice: the sides would meet only at d = n/2, beyond k/2 since k < n.
    std::sort(list.begin(), list.end());
  }
  return graph;
}

std::vector<uint32_t> live_neighbours(const Neighbours& graph, uint32_t u, const std::vector<uint32_t>& set) {
  const auto& neighbours = graph.at(u);
  std::vector<uint32_t> out;
  std::set_intersection(neighbours.begin(), neighbours.end(), set.begin(), set.end(), std::back_inserter(out));
  return out;
}

std::optional<Shortfall> first_below_threshold(const Neighbours& graph, const std::vector<uint32_t>& live,
                                               uint32_t threshold) {
  for (uint32_t u : live) {
    const size_t closed = live_neighbours(graph, u, live).size() + 1;
    if (closed < threshold) return Shortfall{u, closed};
  }
  return std::nullopt;
}

}  // namespace edgetrain::privacy::secagg
