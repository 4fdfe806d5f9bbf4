// The devices of a run on the activity path (device_path.hpp): no actor per device. The aggregator
// posts each round's models here; dispatch() hands them, kDevicesPerDriver at a time, to fleet
// drivers (fleet_driver.hpp), actors on the server's host that run each device's round as SimGrid
// activities: the model's transfer, an Exec per step on the device's host, the update's transfer,
// with the same bookkeeping as a device actor (device_actor.hpp) at the same instants.
//
// Why drivers of a bounded number of devices, and not one actor for the whole fleet (SimGrid 3.32,
// src/kernel/activity/{CommImpl,ExecImpl}.cpp): every activity an actor starts sits in that actor's
// std::list of activities, and completing one removes it with list::remove, which scans the whole list;
// Comm::sendto keeps every host-to-host transfer in the maestro's one list likewise. One actor for n
// concurrent transfers costs O(n^2) (a 262,144-device round: hours). A driver waits with wait_any over
// at most kDevicesPerDriver activities, and its lists stay that short.
//
// A mailbox transfer goes from its sender's host to its receiver's host. A driver sends each model
// from the server's host to its channel's sink, an actor that runs no code and is moved onto the device's
// host just before each send (the receiver's host is read when the transfer starts; a sink per driver, as
// drivers interleave); it sends each update from the device's host by moving itself there. An actor that moves takes its running Execs with it, so a
// driver's Execs are made by a helper of its own that never moves (fleet_driver.cpp).
#pragma once

#include <cstddef>
#include <memory>
#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/core/messages.hpp"

namespace edgetrain::sim {

struct RunState;

// A driver's way to send models: a mailbox whose permanent receiver is the sink, an actor that waits for
// ever (never suspended: a transfer to a suspended actor would start suspended) and that the driver moves.
struct ModelChannel {
  simgrid::s4u::Mailbox* mailbox = nullptr;
  simgrid::s4u::ActorPtr sink;
};

// One device's model for this round, posted by its aggregator.
struct FleetJob {
  size_t device = 0;
  std::unique_ptr<ModelMessage> model;
};

class ActivityFleet {
 public:
  // Devices one driver serves: its wait_any scans this many activities per completion, and a round of n
  // devices costs n / kDevicesPerDriver drivers and as many helpers (two small stacks each).
  static constexpr size_t kDevicesPerDriver = 16;
  // A sink and a driver's helper only wait (and make Execs): small stacks (Actor::set_stacksize counts KiB).
  static constexpr unsigned kWaiterStackKiB = 16;

  // Models leave from `server`.
  ActivityFleet(RunState& state, simgrid::s4u::Host* server) : state_(state), server_(server) {}
  // From the aggregator: `device`'s model for this round.
  void post(size_t device, std::unique_ptr<ModelMessage> model);
  // From the aggregator, once a round's models are posted: starts the drivers that send them.
  void dispatch();

  // Driver side: the host models leave from, and a channel of the driver's own for its life.
  simgrid::s4u::Host* server() const { return server_; }
  ModelChannel take_channel();
  void give_back(ModelChannel channel) { free_channels_.push_back(std::move(channel)); }

  // Updates delivered at one instant reach the aggregator in rank order (inbox.hpp) only once all of them
  // are in its inbox: a driver woken at an instant counts as settling until it has taken every activity
  // that ended then; the aggregator waits for none to be (Inbox::set_settling).
  void settling(bool on) { settling_ += on ? 1 : -1; }
  bool settled() const { return settling_ == 0; }

 private:
  RunState& state_;
  simgrid::s4u::Host* server_;
  std::vector<FleetJob> posted_;
  std::vector<ModelChannel> free_channels_;
  size_t channels_ = 0, drivers_ = 0;
  int64_t settling_ = 0;
};

}  // namespace edgetrain::sim
