// Bytes carried by every link of the platform: each completed message adds its size to every
// link on its route (SimGrid's route_to; routes cached per host pair). SimGrid's link_load
// plugin integrates usage over time but counts no payload bytes, hence this ledger.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report/run_record.hpp"

namespace simgrid::s4u {
class Host;
class Link;
}  // namespace simgrid::s4u

namespace edgetrain::sim {

class LinkLedger {
 public:
  void carried(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, int64_t bytes);
  // Every link of the platform, sorted by name (unused links with zero bytes).
  std::vector<report::LinkRow> records() const;

 private:
  std::map<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>, std::vector<std::string>> routes_;
  std::map<std::string, std::pair<int64_t, int64_t>> totals_;  // link -> (bytes, messages)
};

}  // namespace edgetrain::sim
