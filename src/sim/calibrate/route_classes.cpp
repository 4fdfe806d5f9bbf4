#include "sim/calibrate/route_classes.hpp"

#include <map>
#include <stdexcept>
#include <simgrid/s4u.hpp>

#include "sim/core/network_calibration.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

std::vector<sg4::Link*> links_between(const sg4::Host* from, const sg4::Host* to) {
  std::vector<sg4::Link*> links;
  try {
    from->route_to(to, links, nullptr);
  } catch (const std::out_of_range&) {
    links.clear();
  }
  return links;
}

std::vector<RouteClassInfo> route_classes(const sg4::Engine& engine, sg4::Host* server) {
  std::vector<RouteClassInfo> classes;
  std::map<packet::RouteShape, size_t> index;
  const auto add = [&](sg4::Host* from, sg4::Host* to) {
    const std::vector<sg4::Link*> links = links_between(from, to);
    if (links.empty()) return;
    packet::RouteShape shape = route_shape(links);
    const auto [it, added] = index.emplace(shape, classes.size());
    if (added) classes.push_back({std::move(shape), links, {}});
    classes[it->second].routes.push_back({from, to});
  };
  const std::vector<sg4::Host*> hosts = engine.get_all_hosts();
  for (sg4::Host* a : hosts) {
    if (server) {
      if (a == server) continue;
      add(a, server);
      add(server, a);
      continue;
    }
    for (sg4::Host* b : hosts)
      if (a != b) add(a, b);
  }
  return classes;
}

}  // namespace edgetrain::sim
