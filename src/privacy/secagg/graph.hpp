// Who masks with whom and holds whose shares. SecAgg (Bonawitz et al. 2017): everyone with everyone.
// SecAgg+ (Bell et al. 2020): a k-regular graph, here the Harary graph H_{k,n} laid on a
// seeded permutation of the participants: on the permuted cycle, each client is joined to the k/2
// nearest on each side, and for odd k (n even) also to the one opposite. The seed is the round's,
// known to the server, which tells each client its neighbours by the keys it forwards.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "privacy/secagg/config.hpp"

namespace edgetrain::privacy::secagg {

// Each participant's neighbours, sorted, itself excluded.
using Neighbours = std::map<uint32_t, std::vector<uint32_t>>;

// Throws std::invalid_argument on repeated participants or a config that validate() rejects.
Neighbours build_graph(const Config& config, std::span<const uint32_t> participants, uint64_t seed);

// u's neighbours that are in `set` (sorted), itself excluded.
std::vector<uint32_t> live_neighbours(const Neighbours& graph, uint32_t u, const std::vector<uint32_t>& set);

// The first client of `live` (sorted) whose closed neighbourhood keeps fewer than `threshold` live
// clients, and how many it keeps: the client that would abort, whose secrets could not be recovered.
struct Shortfall {
  uint32_t client;
  size_t live;
};
std::optional<Shortfall> first_below_threshold(const Neighbours& graph, const std::vector<uint32_t>& live,
                                               uint32_t threshold);

}  // namespace edgetrain::privacy::secagg
