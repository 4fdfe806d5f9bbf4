// See graph.hpp.
#include "privacy/secagg/graph.hpp"

#include <algorithm>
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

}  // namespace edgetrain::privacy::secagg
