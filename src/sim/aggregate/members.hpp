// An aggregator's members: the devices it serves (scenario device indices) and, for each device,
// its position among them (what the aggregator's model store is indexed by).
#pragma once

#include <cstddef>
#include <vector>

namespace edgetrain::sim {

// device index -> position in `members`; devices that are not members get members.size().
inline std::vector<size_t> member_positions(const std::vector<size_t>& members, size_t devices) {
  std::vector<size_t> position(devices, members.size());
  for (size_t m = 0; m < members.size(); ++m) position[members[m]] = m;
  return position;
}

}  // namespace edgetrain::sim
