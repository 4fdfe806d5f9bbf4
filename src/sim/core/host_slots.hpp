// A population's host slots (population.hosts "slots", docs/how-to/populations.md). The platform holds
// per site a few hosts SITE-slot-K with their own two access links; the fleet's devices are records.
// A device selected for a round is placed on a free slot of its site: the slot's links take the
// bandwidths and latency the device's own host would have had (parsed by SimGrid from the same text),
// its steps run bounded to its own speed (the slot is as fast as the site's fastest device), and the
// device actor starts there for one update, freeing the slot once the update is delivered. A run whose
// every device is placed this way gives the times of a platform with a host per device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <simgrid/s4u.hpp>
#include <vector>

#include "scenario/scenario.hpp"

namespace edgetrain::sim {

struct RunState;

class HostSlots {
 public:
  // Finds the slots of `population`'s platform and checks their routes to and from `server` (throws
  // PlatformError when one is missing).
  HostSlots(const simgrid::s4u::Engine& engine, const scenario::Population& population,
            const simgrid::s4u::Host* server);
  size_t count() const { return slots_.size(); }
  simgrid::s4u::Host* host(size_t slot) const { return slots_[slot].host; }
  // The device's speed per core as SimGrid reads its text ("3400Mf").
  double speed(size_t device) const;
  // The slot `device` is on (valid while it is placed, and after, until its next placement).
  size_t slot_of(size_t device) const { return slot_of_[device]; }
  // Places `device` on a free slot of its site and starts its actor there for one update (its model
  // is posted to the slot's courier next). Throws PlatformError (bad input: population.slots_per_site) when
  // the site has no free slot.
  void place(RunState& state, size_t device);
  // The device's update is delivered (or lost): its slot is free again.
  void release(size_t device);

 private:
  struct Slot {
    simgrid::s4u::Host* host;
    simgrid::s4u::Link *up, *down;
  };
  const scenario::Population& population_;
  std::vector<Slot> slots_;
  std::vector<std::vector<size_t>> free_;  // per site: its free slots, the lowest index last
  std::vector<size_t> site_of_;            // per device
  std::vector<uint32_t> slot_of_;          // per device
};

}  // namespace edgetrain::sim
