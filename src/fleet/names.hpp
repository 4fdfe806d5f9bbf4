// The names a generated platform gives its zones, hosts, routers and links, in one place so the
// generator, the device list and the scenario side (which selects hosts by these names and by
// their properties) agree. Device hosts are CLASS-J, J counting from 0 over the class; links are
// HOST-up / HOST-down (device to network, network to device), SITE-uplink-up / SITE-uplink-down,
// SITE-lan, SITE-agg-up / SITE-agg-down, wan and cloud-ingress.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "fleet/spec.hpp"

namespace edgetrain::fleet {

inline constexpr const char* kTopZone = "fleet";
inline constexpr const char* kWanLink = "wan";
inline constexpr const char* kIngressLink = "cloud-ingress";

inline std::string device_host(const std::string& device_class, int64_t j) {
  return device_class + "-" + std::to_string(j);
}
inline std::string site_router(const std::string& site) { return site + "-gw"; }
inline std::string site_aggregator(const std::string& site) { return site + "-agg"; }
inline std::string cloud_zone(const std::string& cloud_host) { return cloud_host + "-zone"; }
inline std::string up_link(const std::string& host) { return host + "-up"; }
inline std::string down_link(const std::string& host) { return host + "-down"; }
inline std::string uplink_up(const std::string& site) { return site + "-uplink-up"; }
inline std::string uplink_down(const std::string& site) { return site + "-uplink-down"; }
inline std::string lan_link(const std::string& site) { return site + "-lan"; }
// A population's host slots (population.hosts "slots"): SITE-slot-K, K counting from 0 in the site.
inline std::string slot_host(const std::string& site, size_t k) { return site + "-slot-" + std::to_string(k); }

// Every site, in order: its name (the zone's id) and the index of its group in spec.sites.
std::vector<std::pair<std::string, size_t>> site_instances(const std::vector<SiteGroup>& groups);

// Throws FleetError (path `where`) when two generated names would be the same, e.g. a site
// "pi-3" beside the fourth host of class "pi": SimGrid would abort on the second one.
void check_names(const FleetSpec& spec, const std::string& where);

}  // namespace edgetrain::fleet
