#include "sim/core/network_calibration.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u.hpp>

#include "sim/core/platform.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

std::string platform_fingerprint(const sg4::Engine& engine) {
  std::vector<std::string> names;
  for (const sg4::Host* h : engine.get_all_hosts()) names.push_back("host " + h->get_name());
  for (const sg4::Link* l : engine.get_all_links()) names.push_back("link " + l->get_name());
  std::sort(names.begin(), names.end());
  uint64_t hash = 14695981039346656037ull;
  for (const std::string& n : names) {
    for (const char c : n + '\n') {
      hash ^= static_cast<unsigned char>(c);
      hash *= 1099511628211ull;
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

packet::RouteShape route_shape(const std::vector<sg4::Link*>& links) {
  packet::RouteShape shape;
  for (const sg4::Link* l : links) shape.push_back({l->get_bandwidth(), l->get_latency()});
  return shape;
}

packet::Link packet_link(const sg4::Link* l) {
  auto sharing = packet::Link::Sharing::shared;  // SHARED, or a SPLITDUPLEX link's half
  if (l->get_sharing_policy() == sg4::Link::SharingPolicy::FATPIPE) sharing = packet::Link::Sharing::fatpipe;
  if (l->get_sharing_policy() == sg4::Link::SharingPolicy::WIFI ||
      l->get_sharing_policy() == sg4::Link::SharingPolicy::NONLINEAR)
    sharing = packet::Link::Sharing::wifi;
  return {l->get_name(), l->get_bandwidth(), l->get_latency(), sharing};
}

void NetworkCalibration::install(sg4::Engine& engine) {
  using Links = std::vector<sg4::Link*>;
  using Zones = std::unordered_set<sg4::NetZone*>;
  // Links a calibration cannot speak for (Wi-Fi's rate depends on the station): factors stay 1.
  const auto calibrated = [this](const Links& links) {
    return active_ && !links.empty() && std::none_of(links.begin(), links.end(), [](const sg4::Link* l) {
      return l->get_sharing_policy() == sg4::Link::SharingPolicy::WIFI;
    });
  };
  auto* model = engine.get_netzone_root()->get_network_model();
  try {
    model->set_bw_factor_cb([this, calibrated](double, const sg4::Host*, const sg4::Host*, const Links& links,
                                               const Zones&) {
      if (!calibrated(links)) return 1.0;
      const packet::RouteShape shape = route_shape(links);
      const auto [one_way, bottleneck] = packet::Calibration::path_of(shape);
      return active_->model_of(shape).rate_Bps(one_way, bottleneck) / bottleneck;
    });
    model->set_lat_factor_cb([this, calibrated](double size, const sg4::Host*, const sg4::Host*, const Links& links,
                                                const Zones&) {
      if (!calibrated(links)) return 1.0;
      const packet::RouteShape shape = route_shape(links);
      const auto [one_way, bottleneck] = packet::Calibration::path_of(shape);
      if (!(one_way > 0)) return 1.0;
      // The flow model gives latency x factor + size / (bandwidth x bandwidth factor): the rest of
      // the calibrated time goes to the latency.
      const double rest = target_s(size, shape) - size / active_->model_of(shape).rate_Bps(one_way, bottleneck);
      return std::max(0.0, rest) / one_way;
    });
  } catch (const std::invalid_argument&) {
    throw PlatformError(
        "network.model tcp: the slow-start TCP model (the default, and any calibration) sets SimGrid's latency and "
        "bandwidth factors itself; drop --cfg=network/latency-factor and --cfg=network/bandwidth-factor, or set "
        "network.model cm02");
  }
}

double NetworkCalibration::target_s(double bytes, const packet::RouteShape& route) const {
  const auto key = std::make_tuple(active_, bytes, route);
  if (const auto it = times_.find(key); it != times_.end()) return it->second;
  return times_[key] = active_->target_s(bytes, route);
}

}  // namespace edgetrain::sim
