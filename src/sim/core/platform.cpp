// See platform.hpp.
#include "sim/core/platform.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <simgrid/s4u.hpp>
#include <xbt/config.hpp>

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {
namespace {

std::string host_list(const sg4::Engine& engine) {
  std::string names;
  for (const auto* h : engine.get_all_hosts()) names += (names.empty() ? "" : ", ") + h->get_name();
  return names;
}

}  // namespace

sg4::Host* find_host(const sg4::Engine& engine, const std::string& path, const std::string& name,
                     const scenario::Scenario& scenario) {
  sg4::Host* host = engine.host_by_name_or_null(name);
  if (!host) {
    throw PlatformError(path + ": host \"" + name + "\" is not in platform " + scenario.platform.string() +
                        " (hosts: " + host_list(engine) + ")");
  }
  return host;
}

void check_route(const sg4::Host* from, const sg4::Host* to, const std::string& path) {
  std::vector<sg4::Link*> links;
  double latency = 0;
  try {
    from->route_to(to, links, &latency);
  } catch (const std::exception& e) {
    throw PlatformError(path + ": no route from host \"" + from->get_name() + "\" to \"" + to->get_name() +
                        "\" in the platform (" + e.what() + ")");
  }
  if (links.empty() && latency == 0) {
    throw PlatformError(path + ": no route from host \"" + from->get_name() + "\" to \"" + to->get_name() +
                        "\" in the platform");
  }
}

// Routes SimGrid 3.32 aborts on instead of answering: to or from a host of a routing="None"
// zone (it has no routes), and between a Vivaldi zone's sub-zones and anything else in it (it
// asks the sub-zone itself for coordinates).
void check_routable(const platform::PlatformInfo& info, const std::string& path, const std::string& host,
                    const std::string& server) {
  const auto at = info.hosts.find(host), to = info.hosts.find(server);
  if (at == info.hosts.end()) return;  // reported by find_host, with the platform's hosts
  for (const platform::ZoneRef& z : at->second.zones) {
    if (z.routing == platform::Routing::None) {
      throw PlatformError(path + ": host \"" + host + "\" is in zone \"" + z.id +
                          "\" with routing=\"None\", which has no routes: edgetrain needs a route to the server");
    }
  }
  if (to == info.hosts.end() || host == server) return;
  const auto& a = at->second.zones;
  const auto& b = to->second.zones;
  size_t common = 0;
  while (common < a.size() && common < b.size() && a[common].id == b[common].id) ++common;
  if (common == 0) return;  // distinct top-level zones: find_host's route check reports it
  const platform::ZoneRef& meet = a[common - 1];
  if (meet.routing == platform::Routing::Vivaldi && (a.size() > common || b.size() > common)) {
    throw PlatformError(path + ": the route from host \"" + host + "\" to \"" + server +
                        "\" enters a zone inside Vivaldi zone \"" + meet.id +
                        "\", which SimGrid 3.32 aborts on: put both hosts in the same sub-zone, or the Vivaldi zone "
                        "itself");
  }
}

namespace {

// SimGrid's ns-3 binding builds its network from routes of exactly one link (and flat clusters);
// it ignores longer routes and aborts on a transfer between hosts they alone connect. It also
// crashes (segmentation fault) when a host or link fails under a transfer.
void check_ns3_mapping(const platform::PlatformInfo& info, const scenario::Scenario& scenario) {
  const std::string why = "--cfg=network/model:ns-3: ";
  if (scenario.faults && (!scenario.faults->devices.empty() || !scenario.faults->links.empty())) {
    throw PlatformError("faults: " + why +
                        "edgetrain does not support faults under ns-3 (SimGrid 3.32's ns-3 binding crashes when a "
                        "host or link fails, and ignores bandwidth changes); use the default network model");
  }
  if (scenario.traces) {
    throw PlatformError("traces: " + why +
                        "edgetrain does not support device traces under ns-3 (devices that go off crash SimGrid 3.32's "
                        "ns-3 binding, which also ignores bandwidth changes); use the default network model");
  }
  if (!info.wifi_zones.empty()) {
    throw PlatformError(why + "edgetrain does not support Wi-Fi zones under ns-3 (zone \"" + info.wifi_zones[0].id +
                        "\"); use the default network model");
  }
  if (info.has_multilevel_cluster) {
    throw PlatformError(why + "SimGrid's ns-3 binding supports only FLAT clusters, and " + scenario.platform.string() +
                        " has a TORUS, FAT_TREE or DRAGONFLY one");
  }
  std::map<std::string, std::vector<std::string>> next;
  for (const auto& [a, b] : info.one_link_pairs) {
    next[a].push_back(b);
    next[b].push_back(a);
  }
  std::set<std::string> reached = {scenario.server};
  std::deque<std::string> todo = {scenario.server};
  while (!todo.empty()) {
    const std::string at = todo.front();
    todo.pop_front();
    for (const std::string& n : next[at])
      if (reached.insert(n).second) todo.push_back(n);
  }
  for (size_t i = 0; i < scenario.devices.size(); ++i) {
    const std::string& host = scenario.devices[i].host;
    if (!reached.count(host) && info.hosts.count(host)) {
      throw PlatformError("devices[" + std::to_string(i) + "]: " + why + "host \"" + host + "\" is not joined to \"" +
                          scenario.server +
                          "\" by routes of exactly one link between hosts and routers, the only routes SimGrid's "
                          "ns-3 binding uses (declare each hop as its own <route>, through <router>s)");
    }
  }
}

// SimGrid 3.32 needs each Wi-Fi station's rate level set before its first transfer. The link's
// top rate is kept as a property: SimGrid's get_bandwidth() of a Wi-Fi link is not a rate.
void set_wifi_rates(const sg4::Engine& engine, const platform::PlatformInfo& info) {
  for (const platform::WifiZone& zone : info.wifi_zones) {
    sg4::Link* link = engine.link_by_name(zone.link);
    link->set_property(kWifiTopRateProperty, std::to_string(zone.rates_Bps.front()));
    for (const auto& [host, level] : zone.stations) link->set_host_wifi_rate(engine.host_by_name(host), level);
  }
}

// The platform text a scenario changed or generated, in a file of its own while SimGrid reads it
// (SimGrid 3.32 loads platforms from files only); removed once loaded.
class TemporaryPlatformFile {
 public:
  explicit TemporaryPlatformFile(const std::string& xml) {
    std::string name = (std::filesystem::temp_directory_path() / "edgetrain-platform-XXXXXX.xml").string();
    const int fd = mkstemps(name.data(), 4);
    if (fd < 0)
      throw PlatformError("platform: cannot create a temporary file for the platform: " +
                          std::string(std::strerror(errno)));
    path_ = name;
    const bool written = ::write(fd, xml.data(), xml.size()) == static_cast<ssize_t>(xml.size());
    ::close(fd);
    if (!written) throw PlatformError("platform: cannot write the temporary platform file " + path_.string());
  }
  ~TemporaryPlatformFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  TemporaryPlatformFile(const TemporaryPlatformFile&) = delete;
  TemporaryPlatformFile& operator=(const TemporaryPlatformFile&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// What-ifs on one direction of a SPLITDUPLEX link, which the XML cannot say (scenario.hpp).
void set_link_directions(const sg4::Engine& engine, const scenario::Scenario& scenario) {
  for (const scenario::LinkDirectionSetting& d : scenario.link_directions) {
    sg4::Link* link = engine.link_by_name(d.link);
    if (d.bandwidth_bps) link->set_bandwidth(*d.bandwidth_bps / 8);  // SimGrid counts bytes per second
    if (d.latency_s) link->set_latency(*d.latency_s);
  }
}

}  // namespace

platform::PlatformInfo read_platform(const scenario::Scenario& scenario) {
  // load_scenario checked a platform it changed or generated (and any it read for a selector).
  if (scenario.platform_info) return *scenario.platform_info;
  try {
    return platform::check_platform_file(scenario.platform);
  } catch (const platform::PlatformFileError& e) {
    throw PlatformError(e.what());
  }
}

PlatformHosts load_and_check_platform(sg4::Engine& engine, const scenario::Scenario& scenario,
                                      const platform::PlatformInfo& info, PlatformNeeds& needs) {
  check_routable(info, "server", scenario.server, scenario.server);
  // A population's devices have no hosts until placed: its slots are checked once loaded (HostSlots).
  const size_t hosted = scenario.population ? 0 : scenario.devices.size();
  for (size_t i = 0; i < hosted; ++i) {
    check_routable(info, "devices[" + std::to_string(i) + "]", scenario.devices[i].host, scenario.server);
  }
  needs.check_before_loading(info, scenario);
  if (simgrid::config::get_value<std::string>("network/model") == "ns-3" && info.hosts.count(scenario.server)) {
    check_ns3_mapping(info, scenario);
  }
  try {
    if (scenario.platform_xml.empty()) {
      engine.load_platform(scenario.platform.string());
    } else {
      const TemporaryPlatformFile file(scenario.platform_xml);
      engine.load_platform(file.path().string());
    }
    engine.seal_platform();
    set_wifi_rates(engine, info);
    set_link_directions(engine, scenario);
  } catch (const std::exception& e) {
    throw PlatformError("platform: cannot load " + scenario.platform.string() + ": " + e.what());
  }
  PlatformHosts hosts;
  hosts.server = find_host(engine, "server", scenario.server, scenario);
  const std::vector<sg4::Host*> upstream = needs.upstream_hosts(engine, scenario, hosts.server);
  if (scenario.population) hosts.devices.assign(scenario.devices.size(), nullptr);
  // Every host by name, made once: SimGrid 3.32 looks a name up in every zone in turn (a generated fleet of a
  // million devices has a thousand cluster zones: a quarter of an hour of lookups).
  std::unordered_map<std::string_view, sg4::Host*> by_name;
  for (sg4::Host* h : engine.get_all_hosts()) by_name.emplace(h->get_name(), h);
  for (size_t i = 0; i < hosted; ++i) {
    const std::string path = "devices[" + std::to_string(i) + "]";
    const auto known = by_name.find(scenario.devices[i].host);
    sg4::Host* host =
        known != by_name.end() ? known->second : find_host(engine, path, scenario.devices[i].host, scenario);
    if (host == hosts.server) throw PlatformError(path + ": host \"" + host->get_name() + "\" is the server");
    if (upstream[i]) {
      check_route(host, upstream[i], path);
      check_route(upstream[i], host, path);
    }
    hosts.devices.push_back(host);
  }
  return hosts;
}

}  // namespace edgetrain::sim
