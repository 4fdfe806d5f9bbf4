// See site_record.hpp.
#include "sim/topology/site_record.hpp"

namespace edgetrain::sim {

nlohmann::json sites_summary(const HierarchyRecord& record) {
  nlohmann::json out = nlohmann::json::array();
  for (const SiteRecord& s : record.sites) {
    out.push_back({{"host", s.host},
                   {"devices", s.devices},
                   {"site_rounds", s.site_rounds},
                   {"deltas_aggregated", s.deltas_aggregated},
                   {"deltas_late", s.deltas_late},
                   {"deltas_failed", s.deltas_failed},
                   {"models_failed", s.models_failed},
                   {"bytes_to_cloud", s.bytes_to_cloud},
                   {"bytes_from_cloud", s.bytes_from_cloud}});
  }
  return out;
}

nlohmann::json bytes_by_level(const HierarchyRecord& record, int64_t device_bytes_up, int64_t device_bytes_down) {
  int64_t to_cloud = 0, from_cloud = 0;
  for (const SiteRecord& s : record.sites) {
    to_cloud += s.bytes_to_cloud;
    from_cloud += s.bytes_from_cloud;
  }
  return {{"device_to_site", device_bytes_up},
          {"site_to_device", device_bytes_down},
          {"site_to_cloud", to_cloud},
          {"cloud_to_site", from_cloud}};
}

}  // namespace edgetrain::sim
