// See device_traces.hpp.
#include "sim/core/device_traces.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <simgrid/s4u.hpp>
#include <stdexcept>

#include "fleet/spec.hpp"
#include "input/trace_files.hpp"
#include "learn/catalogue.hpp"
#include "platform/bounds.hpp"
#include "scenario/error.hpp"
#include "scenario/trace_assign.hpp"
#include "sim/core/platform.hpp"
#include "util/format.hpp"
#include "util/limits.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {
namespace {

using scenario::ScenarioError;

// The complement of the on intervals over [0, forever): off before the first, between two, after
// the last (until the run ends).
scenario::DeviceFaultSpec off_plan(const std::string& device, const std::vector<input::OnInterval>& on) {
  scenario::DeviceFaultSpec spec;
  spec.device = device;
  double from = 0;
  for (const input::OnInterval& i : on) {
    if (i.start_s > from) spec.off.push_back({from, i.start_s});
    from = i.end_s;
  }
  spec.off.push_back({from, std::numeric_limits<double>::infinity()});
  return spec;
}

scenario::AssignInput assign_input(const scenario::Scenario& sc, const learn::DeviceParts& parts, const char* key,
                                   const std::filesystem::path& file, const std::vector<input::TraceDevice>& trace) {
  scenario::AssignInput in;
  in.assign = sc.traces->assign;
  in.where = std::string(key) + ": " + file.string();
  in.seed_tag = std::string("traces-") + (std::string(key) == "traces.capacity" ? "capacity" : "availability");
  in.seed = sc.seed;
  in.trace = &trace;
  for (const auto& d : sc.devices) in.devices.push_back(d.name);
  for (size_t i = 0; i < sc.devices.size(); ++i) in.samples.push_back(static_cast<int64_t>(parts.of(i)->size()));
  return in;
}

// The on intervals a fleet wrote into a host's property or a population's record ("start:end,start:end");
// `where` names the host or the device.
std::vector<input::OnInterval> fleet_intervals(const std::string& where, const std::string& text) {
  std::vector<input::OnInterval> on;
  auto bad = [&] {
    return PlatformError(where + ": property " + fleet::kAvailabilityProperty + " \"" +
                         text.substr(0, 80) + "\": expected start:end intervals in order, separated by commas");
  };
  size_t at = 0;
  while (at < text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    const size_t colon = item.find(':');
    if (colon == std::string::npos) throw bad();
    input::OnInterval i;
    try {
      size_t used = 0;
      i.start_s = std::stod(item.substr(0, colon), &used);
      if (used != colon) throw bad();
      i.end_s = std::stod(item.substr(colon + 1), &used);
      if (used != item.size() - colon - 1) throw bad();
    } catch (const std::logic_error&) {
      throw bad();
    }
    if (!(i.start_s >= 0 && i.end_s > i.start_s && i.end_s <= util::kMaxTimeS) ||
        (!on.empty() && i.start_s < on.back().end_s)) {
      throw bad();
    }
    on.push_back(i);
    at = comma + 1;
  }
  return on;
}

// Devices whose class follows a fleet's availability trace (in their host's property, or a population's
// records): the same needs as traces.availability.
void fleet_availability(const scenario::Scenario& sc, const std::vector<sg4::Host*>& hosts, DeviceTraces& out) {
  const size_t n = sc.population ? sc.devices.size() : hosts.size();
  for (size_t i = 0; i < n; ++i) {
    const char* text = nullptr;
    if (!sc.population) {
      text = hosts[i]->get_property(fleet::kAvailabilityProperty);
    } else if (const std::string& on = sc.population->fleet.devices[i].availability_on_s; !on.empty()) {
      text = on.c_str();
    }
    if (!text) continue;
    const std::string where = sc.population ? "device " + sc.devices[i].name : "host " + hosts[i]->get_name();
    if (sc.faults && !sc.faults->devices.empty()) {
      throw PlatformError("faults.devices: not with a fleet whose class follows an availability trace (" + where +
                          "); a device's on and off times come from one of them");
    }
    if (sc.topology.gossip()) {
      throw PlatformError("topology.kind: gossip does not support devices that go off (" + where +
                          " follows its fleet class's availability trace)");
    }
    const auto& t = sc.training;
    if (!t.applies_on_arrival() && !t.round_timeout_s) {
      throw PlatformError(
          "training.round_timeout_s: required in synchronous rounds when devices follow an availability "
          "trace (" +
          where + " of the fleet's platform does)");
    }
    if (out.availability.empty()) out.availability.resize(n);
    out.availability[i] = off_plan(sc.devices[i].name, fleet_intervals(where, text));
  }
}

}  // namespace

DeviceTraces plan_device_traces(const scenario::Scenario& sc, const learn::DeviceParts& parts,
                                const std::vector<sg4::Host*>& hosts) {
  const size_t n = sc.devices.size();
  DeviceTraces out;
  if (!sc.traces || sc.traces->availability.empty()) fleet_availability(sc, hosts, out);
  if (!sc.traces) return out;
  const scenario::TracesSpec& t = *sc.traces;
  if (!t.availability.empty()) {
    const input::AvailabilityTrace trace = input::read_availability(t.availability);
    scenario::AssignInput in = assign_input(sc, parts, "traces.availability", t.availability, trace.devices);
    for (size_t k = 0; k < trace.devices.size(); ++k) in.merit.push_back(trace.on_s(k));
    const auto picked = scenario::assign_trace(in);
    out.availability.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (picked[i]) out.availability[i] = off_plan(sc.devices[i].name, trace.on[*picked[i]]);
    }
  }
  if (!t.capacity.empty()) {
    const input::CapacityTrace trace = input::read_capacity(t.capacity);
    scenario::AssignInput in = assign_input(sc, parts, "traces.capacity", t.capacity, trace.devices);
    for (const auto& row : trace.rows) in.merit.push_back(-row.compute_ms_per_sample);
    const auto picked = scenario::assign_trace(in);
    const learn::CatalogueModel* ref = learn::find_model(t.reference_model);
    if (!ref) throw ScenarioError("traces.reference_model: no catalogue model \"" + t.reference_model + "\"");
    out.speed_flops.resize(n);
    out.bandwidth_bps.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (!picked[i]) continue;
      const input::DeviceCapacity& row = trace.rows[*picked[i]];
      const double speed = ref->step_flops_per_sample() / (3.0 * row.compute_ms_per_sample / 1e3);
      if (speed < platform::kMinSpeedFlops || speed > platform::kMaxSpeedFlops) {
        throw ScenarioError("traces.capacity: " + t.capacity.string() + ":" +
                            std::to_string(trace.devices[*picked[i]].line) + ": compute_ms_per_sample " +
                            util::format_number(row.compute_ms_per_sample) + " gives a speed of " +
                            util::format_number(speed) + " flop/s for reference model " + t.reference_model +
                            ", outside the platform's range [1e6, 1e15]");
      }
      out.speed_flops[i] = speed;
      out.bandwidth_bps[i] = row.bandwidth_kbps * 1e3;
    }
  }
  return out;
}

void apply_trace_bandwidths(const DeviceTraces& traces, const scenario::Scenario& sc,
                            const std::vector<sg4::Host*>& devices, sg4::Host* server) {
  std::map<const sg4::Link*, size_t> owner;
  for (size_t i = 0; i < devices.size(); ++i) {
    const std::optional<double>& bandwidth_bps = trace_of(traces.bandwidth_bps, i);
    if (!bandwidth_bps) continue;
    std::vector<sg4::Link*> up, down;
    double latency = 0;
    devices[i]->route_to(server, up, &latency);
    server->route_to(devices[i], down, &latency);
    if (up.empty() || down.empty()) {
      throw PlatformError("traces.capacity: device \"" + sc.devices[i].name + "\" has no link to the server " +
                          server->get_name() + " whose bandwidth the trace could set");
    }
    for (sg4::Link* link : {up.front(), down.back()}) {
      const auto [it, fresh] = owner.emplace(link, i);
      if (!fresh && it->second != i) {
        throw PlatformError("traces.capacity: devices \"" + sc.devices[it->second].name + "\" and \"" +
                            sc.devices[i].name + "\" share the access link " + link->get_name() +
                            "; a capacity trace sets each device's own access links");
      }
      link->set_bandwidth(*bandwidth_bps / 8);  // SimGrid: bytes/s
    }
  }
}

}  // namespace edgetrain::sim
