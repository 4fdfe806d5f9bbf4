// A platform's route classes: routes whose links have the same bandwidths and latencies in the
// same order take the same time under both models, so calibrate measures one route of each.
#pragma once

#include <string>
#include <vector>

#include "packet/calibration.hpp"

namespace simgrid::s4u {
class Engine;
class Host;
class Link;
}  // namespace simgrid::s4u

namespace edgetrain::sim {

// The links from `from` to `to`, empty when SimGrid has no route between them (its StarZone throws
// std::out_of_range for a host it does not route).
std::vector<simgrid::s4u::Link*> links_between(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to);

struct RouteClassInfo {
  packet::RouteShape shape;
  std::vector<simgrid::s4u::Link*> links;  // of the first route found
  std::vector<std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*>> routes;  // every (source, destination)
};

// The classes of the routes to and from `server`, or between every two hosts when it is null;
// in the order first found (hosts in the engine's order). Routes without a link are left out, and
// pairs SimGrid has no route between (a star zone's gateway host and the hosts outside).
std::vector<RouteClassInfo> route_classes(const simgrid::s4u::Engine& engine, simgrid::s4u::Host* server);

}  // namespace edgetrain::sim
