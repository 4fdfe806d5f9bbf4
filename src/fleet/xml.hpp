// Writing a drawn fleet as a SimGrid 3.32 platform and as a device list.
//
// Layout (docs/reference/fleet-description.md): a top zone "fleet" (routing Full: it holds only the routes
// between each site and the cloud, two per site, never one per device) with
//  - one zone per site, routing="Cluster" (SimGrid's star zone: each host's own up and down link,
//    then the site's LAN backbone if any, to the site gateway router SITE-gw), holding the site's
//    devices and, if asked, its aggregator host SITE-agg;
//  - the cloud host alone in its zone CLOUD-zone;
//  - the links between them: each site's uplink (SITE-uplink-up / -down, the site's shared
//    bottleneck), the WAN backbone "wan" and the cloud's "cloud-ingress" (both SPLITDUPLEX: full
//    duplex, each direction its own capacity), on asymmetric zoneRoutes site -> cloud and back.
// A device's route to the cloud is HOST-up [SITE-lan] [SITE-uplink-up] wan cloud-ingress; back,
// the same links downwards. Every host has the properties role (device, site-aggregator, cloud),
// and devices also class, site and link_class, then their class's own properties.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "fleet/draw.hpp"
#include "fleet/spec.hpp"

namespace edgetrain::fleet {

std::string platform_xml(const Fleet& fleet);
std::string platform_xml(const FleetSpec& spec, uint64_t seed);

// A population's platform (scenario population.hosts "slots"): the same zones, links and routes, but in
// each site `slots_per_site[i]` host slots SITE-slot-K (role "slot") in place of its devices, which
// stay records (the Fleet) and are placed on a slot of their site when they take part in a round.
std::string slot_platform_xml(const Fleet& fleet, const std::vector<size_t>& slots_per_site);

// The values a device's own host and links have in platform_xml, as the text SimGrid parses (so a
// slot set to them at run time holds the same doubles as the device's own host would).
struct DeviceValues {
  std::string speed, up, down, latency;
};
DeviceValues device_values(const Fleet& fleet, size_t device);
std::string device_speed(const Fleet& fleet, size_t device);  // device_values' speed alone

// NAME.devices.csv: one row per device, in platform order:
// host,class,site,link_class,speed_flops,cores,up_bps,down_bps,latency_s
std::string device_list_csv(const Fleet& fleet);
// Where the device list of the platform file `platform` goes: beside it, as PLATFORM.devices.csv.
std::filesystem::path device_list_path(const std::filesystem::path& platform);
std::string device_list_csv(const FleetSpec& spec, uint64_t seed);

// A few lines for the command's output: devices per class, per site group and per link class.
std::string describe_fleet(const Fleet& fleet);

}  // namespace edgetrain::fleet
