// The slow-start TCP model applied to the flow model, at Linux's parameters (network.model tcp, the
// default) or as a calibration fitted it (packet/calibration.hpp): SimGrid 3.32's per-communication
// factor callbacks see each message's size and its route's links, and set the latency factor so
// that a lone transfer takes the model's time, and the bandwidth factor to the model's payload
// rate. Flows that share a link still share it as CM02 does (the bound is per flow). The
// platform's fingerprint ties a calibration to the platform it was made for.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "packet/calibration.hpp"
#include "packet/workload.hpp"

namespace simgrid::s4u {
class Engine;
class Link;
}  // namespace simgrid::s4u

namespace edgetrain::sim {

// FNV-1a over the sorted names of the platform's hosts and links: a what-if on a bandwidth keeps
// it (that route's class then takes the fitted model without its table), another platform does not.
std::string platform_fingerprint(const simgrid::s4u::Engine& engine);

// A route's links as the calibration names them.
packet::RouteShape route_shape(const std::vector<simgrid::s4u::Link*>& links);
// A link as the packet-level reference maps it (name, bandwidth, latency, sharing).
packet::Link packet_link(const simgrid::s4u::Link* link);

// The factor callbacks, installed once on the engine's network model; they apply `*active`
// while it is set, and leave CM02 as it is otherwise (calibrate measures both in one engine).
class NetworkCalibration {
 public:
  // Throws PlatformError when --cfg=network/latency-factor or bandwidth-factor was given (SimGrid
  // refuses both at once).
  void install(simgrid::s4u::Engine& engine);
  void activate(const packet::Calibration* calibration) { active_ = calibration; }

 private:
  double target_s(double bytes, const packet::RouteShape& route) const;

  const packet::Calibration* active_ = nullptr;
  // The model's time per (calibration, bytes, route): a run sends the same sizes on the same routes
  // again and again, and each emulation walks slow start segment by segment.
  mutable std::map<std::tuple<const packet::Calibration*, double, packet::RouteShape>, double> times_;
};

}  // namespace edgetrain::sim
