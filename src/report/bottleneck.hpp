// The bottleneck section of summary.json: the busiest links, what bounds each device (grouped by
// device class), and the sync rounds' critical path. A pure function of the run's records.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/run_record.hpp"

namespace edgetrain::report {

// What sets the pace of sync rounds: the device class whose devices were most often last to deliver,
// its device most often last, and the link of that device's route to the aggregator that ran closest
// to its capacity while busy (utilisation when busy; the simulator resolves the route). Empty device:
// not a sync mode. With client selection a device takes part in few rounds, so the class says more
// than any one device.
struct CriticalPath {
  std::string device;
  int64_t rounds = 0;             // rounds it was the slowest of
  int64_t rounds_aggregated = 0;  // rounds it took part in (its update aggregated)
  std::string device_class;
  int64_t class_rounds = 0;  // rounds whose slowest device was of that class
  std::string link;
  double link_bandwidth_bps = 0;
};

// The class slowest in most rounds (ties: the first in scenario order), and within it the device
// slowest in most rounds (ties: the larger share of the rounds it took part in, then scenario order);
// empty if no round had a slowest device.
CriticalPath slowest_device(const std::vector<RoundRow>& rounds, const std::vector<DeviceRecord>& devices);

// How many busiest links the section lists. Devices whose bound is "none" (they took no part) are
// counted apart, in `took_no_part`; the bound counts are over the devices that took part.
inline constexpr size_t kBusiestLinks = 5;

nlohmann::json bottleneck_json(const std::vector<DeviceRecord>& devices, const std::vector<LinkRow>& links,
                               const std::vector<RoundRow>& rounds, const CriticalPath& critical, double sim_time_s);

}  // namespace edgetrain::report
