// Device churn and link faults (faults.*), played by daemon actors on the server host at their
// scheduled simulated times, with SimGrid's own resource states:
//  - a device switched off is its host turned off: the device actor dies with it, and every
//    transfer it had in flight fails at both ends (the server re-posts its receive). Its
//    update in progress is counted as failed (a push on the wire: failed_pushes; samples it
//    held: samples_lost_in_faults), its time as offline_s. When the host comes back, stale
//    messages queued for it are dropped and a fresh device actor starts (restarts);
//  - a link's bandwidth follows its trace (link->set_bandwidth) and an outage turns it off,
//    failing the transfers that cross it; the devices retry after faults.retry_s.
// Availability given as mtbf_s/mttr_s is drawn from exponential distributions, seeded per device.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"
#include "sim/core/run_state.hpp"

namespace simgrid::s4u {
class Engine;
class Host;
class Link;
}  // namespace simgrid::s4u

namespace edgetrain::sim {

// Per device, its availability entry (null: always on): its faults.devices entry, or the plan of
// its traces.availability rows (`traced`, per device; must outlive the run). An off interval may
// end at infinity (off until the run ends). Throws PlatformError for a device with faults that
// shares its host with another device (a fault switches the whole host off).
std::vector<const scenario::DeviceFaultSpec*> device_faults(
    const scenario::Scenario& scenario, const std::vector<simgrid::s4u::Host*>& hosts,
    const std::vector<std::optional<scenario::DeviceFaultSpec>>& traced);

struct LinkEvent {
  enum class Kind { Bandwidth, Off, On } kind;
  double bandwidth_bps = 0;
};

// A faults.links entry resolved against the platform: the links it names and its events
// (bandwidth steps, outages) by time.
struct LinkFaultPlan {
  std::string name;
  std::vector<simgrid::s4u::Link*> links;
  std::multimap<double, LinkEvent> events;
};

// Resolves every faults.links entry (its links, its trace read and checked), or throws
// PlatformError naming the entry; validate calls it too.
std::vector<LinkFaultPlan> plan_link_faults(const simgrid::s4u::Engine& engine, const scenario::Scenario& scenario);

// Starts the fault actors: per device with an availability entry (state.faults), and per
// planned link (`link_plans` must outlive the run). Call before the engine runs.
void start_fault_actors(RunState& state, simgrid::s4u::Host* where, const std::vector<LinkFaultPlan>& link_plans);

}  // namespace edgetrain::sim
