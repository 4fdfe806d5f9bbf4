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
#include <memory>
#include <optional>
#include <unordered_map>
#include <simgrid/s4u.hpp>
#include <vector>

#include "scenario/scenario.hpp"
#include "sim/core/messages.hpp"

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
  // Places `device` on a free slot of its site, posts `model` to the slot's courier and starts the
  // device's actor there for one update. Throws PlatformError (bad input: population.slots_per_site) when
  // the site has no free slot.
  void place(RunState& state, size_t device, std::unique_ptr<Message> model);
  // The device's update is delivered (or lost): its slot is free again.
  void release(size_t device);
  // The device goes off (traces.availability): if it is on a slot, its actor ends and its transfers
  // with it (the slot is switched off and on again, as a device's own host going off), what was on the
  // way to it is dropped, its update in progress is abandoned and the slot is free.
  void evict(RunState& state, size_t device);
  // Its actor's first step: false when the device went off before its actor ran (the actor then ends).
  bool begin(size_t device);
  // A transfer of the device's update failed: its actor sleeps faults.retry_s on its slot, as on a host
  // of its own. Placed meanwhile, the device keeps its slot and its model waits for it there; end_retry
  // says whether it was (its actor then goes on with that update).
  void start_retry(size_t device) { retrying_[device] = false; }
  bool end_retry(size_t device);
  // Per device (or empty): the access bandwidth (bit/s) its capacity trace gives it (traces.capacity),
  // which its slot's links take in place of its record's.
  void set_traced_bandwidths(const std::vector<std::optional<double>>* bandwidth_bps) { traced_ = bandwidth_bps; }

 private:
  static constexpr size_t kFree = SIZE_MAX;
  struct Slot {
    simgrid::s4u::Host* host;
    simgrid::s4u::Link *up, *down;
    size_t device = kFree;  // the device placed on it
    bool started = false;   // its actor has begun (begin())
  };
  const scenario::Population& population_;
  std::vector<Slot> slots_;
  std::vector<std::vector<size_t>> free_;  // per site: its free slots, the lowest index last
  std::vector<uint32_t> slot_of_;          // per device
  std::vector<bool> evicted_;              // per device: went off before its actor began (which then ends)
  std::unordered_map<size_t, bool> retrying_;  // devices sleeping after a failed transfer: placed meanwhile
  const std::vector<std::optional<double>>* traced_ = nullptr;
};

}  // namespace edgetrain::sim
