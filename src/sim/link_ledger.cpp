// See link_ledger.hpp.
#include "sim/link_ledger.hpp"

#include <simgrid/s4u.hpp>
#include <string>

#include "sim/platform.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

void LinkLedger::carried(const sg4::Host* from, const sg4::Host* to, int64_t bytes) {
  auto it = routes_.find({from, to});
  if (it == routes_.end()) {
    std::vector<sg4::Link*> links;
    double latency = 0;
    from->route_to(to, links, &latency);
    std::vector<std::string> names;
    for (const auto* l : links) names.push_back(l->get_name());
    it = routes_.emplace(std::make_pair(from, to), std::move(names)).first;
  }
  for (const auto& name : it->second) {
    auto& [b, m] = totals_[name];
    b += bytes;
    m += 1;
  }
}

std::vector<report::LinkRow> LinkLedger::records() const {
  std::map<std::string, report::LinkRow> all;
  for (const auto* link : sg4::Engine::get_instance()->get_all_links()) {
    report::LinkRow r;
    r.link = link->get_name();
    // SimGrid stores bytes per second; a Wi-Fi link's rate depends on the station (its top rate here).
    const char* wifi_top = link->get_property(kWifiTopRateProperty);
    r.bandwidth_bps = (wifi_top ? std::stod(wifi_top) : link->get_bandwidth()) * 8;
    r.latency_s = link->get_latency();
    all[r.link] = r;
  }
  for (const auto& [name, totals] : totals_) {
    all[name].link = name;
    all[name].bytes = totals.first;
    all[name].messages = totals.second;
  }
  std::vector<report::LinkRow> out;
  for (auto& [name, r] : all) out.push_back(r);
  return out;
}

}  // namespace edgetrain::sim
