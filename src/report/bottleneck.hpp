// The bottleneck section of summary.json: the busiest links, what bounds each device (grouped by
// device class), and the sync rounds' critical path. A pure function of the run's records.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/run_record.hpp"

namespace edgetrain::report {

// The device most often last to deliver in a sync round, and the busiest link of its route to the
// aggregator (the highest mean utilisation; the simulator resolves the route). Empty device: not a sync mode.
struct CriticalPath {
  std::string device;
  int64_t rounds = 0;  // rounds it was the slowest of
  std::string link;
  double link_bandwidth_bps = 0;
};

// The device that was slowest in most rounds (ties: the first in scenario order); empty if none.
CriticalPath slowest_device(const std::vector<RoundRow>& rounds, const std::vector<DeviceRecord>& devices);

// How many busiest links the section lists.
inline constexpr size_t kBusiestLinks = 5;

nlohmann::json bottleneck_json(const std::vector<DeviceRecord>& devices, const std::vector<LinkRow>& links,
                               const std::vector<RoundRow>& rounds, const CriticalPath& critical, double sim_time_s);

}  // namespace edgetrain::report
