// Energy of hosts and links, on SimGrid's energy models. Hosts: SimGrid's host energy plugin
// integrates each host's power over time: per pstate, `idle` watts with nothing running, else
// epsilon + (all_cores - epsilon) x the share of the host's cores in use, and `wattage_off` while
// the host is off (faults). It is turned on only when some host declares wattage_per_state; hosts
// without it report no energy (never the plugin's assert) and its log lines are silenced
// (make_engine). Links: SimGrid's link energy model, idle + (busy - idle) x utilisation, integrated
// here from the link ledger as idle x time + (busy - idle) x full-load time (delivered bytes over
// bandwidth): SimGrid 3.32's link energy plugin crashes when a communication that never started
// is cancelled, which ends every edgetrain run. Reading energy mid-run brings the host plugin's
// accounts up to now.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "platform/check.hpp"
#include "report/run_record.hpp"

namespace simgrid::s4u {
class Engine;
class Host;
}  // namespace simgrid::s4u

namespace edgetrain::sim {

class LinkLedger;

// Energy so far, in joules; nullopt for a group in which nothing has a wattage.
struct EnergyTotals {
  std::optional<double> devices_j, aggregators_j, links_j, total_j;
};

// Turns on the host energy plugin if the platform needs it: after the Engine is made, before the
// platform is loaded.
void init_energy_plugins(const platform::PlatformInfo& info);

class EnergyMeter {
 public:
  // After the platform is loaded. `devices`: the fleet's hosts in scenario order; every other
  // host with a wattage counts as an aggregator's (server, site aggregators).
  EnergyMeter(const simgrid::s4u::Engine& engine, const platform::PlatformInfo& info,
              const std::vector<simgrid::s4u::Host*>& devices);
  bool active() const { return !hosts_.empty() || !links_.empty(); }
  // For `validate`: what is metered ("energy: 3 hosts with wattage_per_state, 2 links with wattage_range").
  std::string describe() const;
  // Everything metered, from the start of the run to now.
  EnergyTotals totals(const LinkLedger& ledger) const;
  // Per device, in scenario order (nullopt: its host has no wattage_per_state).
  std::vector<std::optional<double>> per_device() const;
  // A links.csv row's energy over `over_s` seconds (nullopt: the link has no wattage_range).
  std::optional<double> link_j(const report::LinkRow& row, double over_s) const;
  // Brings `host`'s account up to now, if it has a wattage (a no-op otherwise, and when it is up to date).
  // The plugin integrates a host's power between the events of its CPU, a comm's waiter's included: an
  // actor waiting on a transfer holds a sleep on its host's CPU until the transfer ends. A fleet driver's
  // wait_any holds none: it brings the accounts up to where the waiting devices and couriers would have
  // (fleet_driver.cpp), so that the integrals are summed over the same intervals.
  static void bring_up_to_date(const simgrid::s4u::Host* host);

 private:
  struct MeteredHost {
    simgrid::s4u::Host* host;
    bool device;
  };
  struct MeteredLink {
    std::string name;
    double idle_w, busy_w;
  };
  std::vector<MeteredHost> hosts_;                // hosts with wattage, in the platform's order
  std::vector<std::optional<size_t>> device_at_;  // per device: its entry in hosts_
  std::vector<MeteredLink> links_;                // links with wattage_range, sorted by name
};

}  // namespace edgetrain::sim
