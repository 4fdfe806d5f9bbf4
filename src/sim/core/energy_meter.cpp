// See energy_meter.hpp.
#include "sim/core/energy_meter.hpp"

#include <simgrid/plugins/energy.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <simgrid/s4u.hpp>
#include <simgrid/simix.hpp>

#include "platform/wattage.hpp"
#include "sim/core/link_ledger.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {
namespace {

std::optional<double> plus(std::optional<double> a, std::optional<double> b) {
  if (!a) return b;
  if (!b) return a;
  return *a + *b;
}

// A figure beyond a double (wattages are bounded, so only a bug or a platform edited past the
// checks) is no figure: empty in the CSVs and null in summary.json alike, said once on stderr.
std::optional<double> finite(std::optional<double> v) {
  if (!v || std::isfinite(*v)) return v;
  static bool warned = false;
  if (!warned) std::fprintf(stderr, "edgetrain: warning: an energy figure overflowed; it is left empty in every output\n");
  warned = true;
  return std::nullopt;
}

}  // namespace

void init_energy_plugins(const platform::PlatformInfo& info) {
  if (info.host_energy) sg_host_energy_plugin_init();
}

void EnergyMeter::bring_up_to_date(const sg4::Host* host) {
  // A host with a wattage exists only where the plugin was turned on (init_energy_plugins).
  if (host->get_property(platform::kHostWattage)) (void)sg_host_get_consumed_energy(host);
}

EnergyMeter::EnergyMeter(const sg4::Engine& engine, const platform::PlatformInfo& info,
                         const std::vector<sg4::Host*>& devices) {
  device_at_.resize(devices.size());
  if (info.host_energy) {
    std::map<const sg4::Host*, size_t> device_index;
    for (size_t i = 0; i < devices.size(); ++i) device_index[devices[i]] = i;
    for (const std::string& name : info.host_order) {
      sg4::Host* host = engine.host_by_name(name);
      if (!host->get_property(platform::kHostWattage)) continue;
      const auto d = device_index.find(host);
      if (d != device_index.end()) device_at_[d->second] = hosts_.size();
      hosts_.push_back({host, d != device_index.end()});
    }
  }
  if (!info.link_energy) return;
  // The platform checker validated every "idle:busy". SimGrid 3.32 keeps a SPLITDUPLEX link's
  // properties on the pair: each of its two directions draws the pair's wattage_range.
  auto add = [this](const std::string& name, const char* range) {
    const std::string text(range);
    const size_t colon = text.find(':');
    links_.push_back({name, std::stod(text.substr(0, colon)), std::stod(text.substr(colon + 1))});
  };
  for (const auto& [name, place] : info.links) {
    if (place.policy == "SPLITDUPLEX") {
      if (const char* range = engine.split_duplex_link_by_name(name)->get_property(platform::kLinkWattage)) {
        add(name + "_DOWN", range);
        add(name + "_UP", range);
      }
    } else if (const sg4::Link* link = engine.link_by_name_or_null(name)) {
      if (const char* range = link->get_property(platform::kLinkWattage)) add(name, range);
    }
  }
  std::sort(links_.begin(), links_.end(), [](const MeteredLink& a, const MeteredLink& b) { return a.name < b.name; });
}

std::string EnergyMeter::describe() const {
  if (!active()) return "energy: not metered (no wattage_per_state or wattage_range in the platform)";
  return "energy: " + std::to_string(hosts_.size()) + " hosts with wattage_per_state, " +
         std::to_string(links_.size()) + " links with wattage_range";
}

// Each host reading brings the plugin's account up to now, a simcall when an actor asks: the whole
// reading runs as one simcall instead (inside it, the plugin's calls run directly).
EnergyTotals EnergyMeter::totals(const LinkLedger& ledger) const {
  EnergyTotals t = simgrid::kernel::actor::simcall_answered([this] {
    EnergyTotals hosts;
    for (const MeteredHost& m : hosts_) {
      std::optional<double>& group = m.device ? hosts.devices_j : hosts.aggregators_j;
      group = group.value_or(0.0) + sg_host_get_consumed_energy(m.host);
    }
    return hosts;
  });
  const double now = sg4::Engine::get_clock();
  for (const MeteredLink& l : links_) {
    t.links_j = t.links_j.value_or(0.0) + l.idle_w * now + (l.busy_w - l.idle_w) * ledger.full_load_s(l.name);
  }
  t.total_j = plus(plus(t.devices_j, t.aggregators_j), t.links_j);
  for (std::optional<double>* v : {&t.devices_j, &t.aggregators_j, &t.links_j, &t.total_j}) *v = finite(*v);
  return t;
}

std::vector<std::optional<double>> EnergyMeter::per_device() const {
  return simgrid::kernel::actor::simcall_answered([this] {
    std::vector<std::optional<double>> out(device_at_.size());
    for (size_t i = 0; i < out.size(); ++i) {
      if (device_at_[i]) out[i] = finite(sg_host_get_consumed_energy(hosts_[*device_at_[i]].host));
    }
    return out;
  });
}

std::optional<double> EnergyMeter::link_j(const report::LinkRow& row, double over_s) const {
  const auto it = std::lower_bound(links_.begin(), links_.end(), row.link,
                                   [](const MeteredLink& l, const std::string& n) { return l.name < n; });
  if (it == links_.end() || it->name != row.link) return std::nullopt;
  return finite(it->idle_w * over_s + (it->busy_w - it->idle_w) * row.full_load_s);
}

}  // namespace edgetrain::sim
