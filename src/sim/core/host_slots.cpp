// See host_slots.hpp.
#include "sim/core/host_slots.hpp"

#include <xbt/parse_units.hpp>

#include "fleet/names.hpp"
#include "fleet/xml.hpp"
#include "sim/core/actor_guard.hpp"
#include "sim/core/device_actor.hpp"
#include "sim/core/device_traces.hpp"
#include "sim/core/platform.hpp"
#include "sim/core/run_state.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

HostSlots::HostSlots(const sg4::Engine& engine, const scenario::Population& population, const sg4::Host* server)
    : population_(population),
      slot_of_(population.fleet.devices.size(), 0),
      evicted_(population.fleet.devices.size(), false) {
  const fleet::Fleet& fleet = population.fleet;
  for (size_t s = 0; s < fleet.sites.size(); ++s) {
    const fleet::Site& site = fleet.sites[s];
    auto& free = free_.emplace_back();
    for (size_t k = population.slots_per_site[s]; k-- > 0;) {
      const std::string name = fleet::slot_host(site.name, k);
      sg4::Host* host = engine.host_by_name_or_null(name);
      sg4::Link* up = engine.link_by_name_or_null(fleet::up_link(name));
      sg4::Link* down = engine.link_by_name_or_null(fleet::down_link(name));
      if (!host || !up || !down)
        throw PlatformError("population: the platform has no slot " + name + " with its links");
      if (k == 0) {
        check_route(host, server, "population");
        check_route(server, host, "population");
      }
      free.push_back(slots_.size());
      slots_.push_back({host, up, down});
    }
  }
}

double HostSlots::speed(size_t device) const {
  return xbt_parse_get_speed("", 0, fleet::device_speed(population_.fleet, device), "");
}

void HostSlots::place(RunState& state, size_t device, std::unique_ptr<Message> model) {
  if (const auto it = retrying_.find(device); it != retrying_.end()) {
    it->second = true;  // still on its slot, with its links: the model waits there for its actor
    state.courier(device).post(std::move(model));
    return;
  }
  const size_t site = population_.fleet.devices[device].site_index;
  auto& free = free_[site];
  if (free.empty()) {
    throw PlatformError("population: site " + population_.fleet.sites[site].name +
                        " has no free host slot for device " + state.scenario.devices[device].name + " (all " +
                        std::to_string(population_.slots_per_site[site]) +
                        " are held by devices of this and earlier rounds); raise population.slots_per_site");
  }
  const size_t k = free.back();
  free.pop_back();
  slot_of_[device] = static_cast<uint32_t>(k);
  Slot& slot = slots_[k];
  slot.device = device;
  slot.started = false;
  state.device_hosts[device] = slot.host;
  // Its model first, before anything that yields to other actors: should the device go off meanwhile,
  // eviction drops the model with it (and its actor, started below, ends at once).
  state.courier(device).post(std::move(model));
  const fleet::DeviceValues v = fleet::device_values(population_.fleet, device);
  const double latency = xbt_parse_get_time("", 0, v.latency, "");
  // A capacity trace's bandwidth, as apply_trace_bandwidths sets a device's own links (bytes/s).
  const std::optional<double> traced = traced_ ? trace_of(*traced_, device) : std::nullopt;
  slot.up->set_bandwidth(traced ? *traced / 8 : xbt_parse_get_bandwidth("", 0, v.up, ""));
  slot.up->set_latency(latency);
  slot.down->set_bandwidth(traced ? *traced / 8 : xbt_parse_get_bandwidth("", 0, v.down, ""));
  slot.down->set_latency(latency);
  sg4::Actor::create(
      state.scenario.devices[device].name, slot.host,
      guarded(state, DeviceActor(state, device, *state.upstream[device], DeviceActor::Lifetime::OneUpdate)))
      ->daemonize();
}

void HostSlots::release(size_t device) {
  slots_[slot_of_[device]].device = kFree;
  free_[population_.fleet.devices[device].site_index].push_back(slot_of_[device]);
}

void HostSlots::evict(RunState& state, size_t device) {
  retrying_.erase(device);  // its sleeping actor ends with the slot (as with its own host)
  Slot& slot = slots_[slot_of_[device]];
  if (slot.device != device) return;  // not on a slot
  if (slot.started) {
    // Its actor ends and its transfers with it, as on a device's own host going off.
    slot.host->turn_off();
    slot.host->turn_on();
  } else {
    // Placed at this very instant, its actor has not run yet (switching the slot off would fail its
    // creation): it will find itself evicted and end at once.
    evicted_[device] = true;
  }
  state.courier(device).clear();  // what was on the way to it is dropped
  state.backend.device(device).abandon();
  release(device);
}

bool HostSlots::begin(size_t device) {
  if (evicted_[device]) {
    evicted_[device] = false;
    return false;
  }
  slots_[slot_of_[device]].started = true;
  return true;
}

bool HostSlots::end_retry(size_t device) {
  const auto it = retrying_.find(device);
  const bool placed = it->second;
  retrying_.erase(it);
  return placed;
}

}  // namespace edgetrain::sim
