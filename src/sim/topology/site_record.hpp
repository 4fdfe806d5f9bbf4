// What the sites of a hierarchical topology did, for summary.json: per site its rounds and its
// deltas to the cloud, and the bytes of each level. Written by the site and cloud aggregators
// (hierarchical.hpp), read once the run ends.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace edgetrain::sim {

struct SiteRecord {
  std::string host;
  int64_t devices = 0;
  int64_t site_rounds = 0;                           // site rounds closed (empty ones too)
  int64_t deltas_aggregated = 0, deltas_late = 0;    // at the cloud: in their round, or after it closed
  int64_t deltas_failed = 0, models_failed = 0;      // cut by a link fault: site -> cloud, cloud -> site
  int64_t bytes_to_cloud = 0, bytes_from_cloud = 0;  // delivered, headers included
};

struct HierarchyRecord {
  std::vector<SiteRecord> sites;  // topology.sites order
  // Sites the cloud rounds did not aggregate: late, failed, or still busy with an earlier round.
  int64_t missing_deltas = 0;
};

// summary.json's `sites` and `bytes_by_level` (device_to_site and site_to_device: the devices'
// bytes_up and bytes_down).
nlohmann::json sites_summary(const HierarchyRecord& record);
nlohmann::json bytes_by_level(const HierarchyRecord& record, int64_t device_bytes_up, int64_t device_bytes_down);

}  // namespace edgetrain::sim
