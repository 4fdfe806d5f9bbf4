// See platform.hpp.
#include "sim/platform.hpp"

#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {
namespace {

std::string host_list(const sg4::Engine& engine) {
  std::string names;
  for (const auto* h : engine.get_all_hosts()) names += (names.empty() ? "" : ", ") + h->get_name();
  return names;
}

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

}  // namespace

PlatformHosts load_and_check_platform(sg4::Engine& engine, const scenario::Scenario& scenario) {
  try {
    engine.load_platform(scenario.platform.string());
    engine.seal_platform();
  } catch (const std::exception& e) {
    throw PlatformError("platform: cannot load " + scenario.platform.string() + ": " + e.what());
  }
  PlatformHosts hosts;
  hosts.server = find_host(engine, "server", scenario.server, scenario);
  for (size_t i = 0; i < scenario.devices.size(); ++i) {
    const std::string path = "devices[" + std::to_string(i) + "]";
    sg4::Host* host = find_host(engine, path, scenario.devices[i].host, scenario);
    if (host == hosts.server) throw PlatformError(path + ": host \"" + host->get_name() + "\" is the server");
    check_route(host, hosts.server, path);
    check_route(hosts.server, host, path);
    hosts.devices.push_back(host);
  }
  return hosts;
}

}  // namespace edgetrain::sim
