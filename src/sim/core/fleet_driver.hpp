// A fleet driver (activity_fleet.hpp): one actor on the server's host running up to
// ActivityFleet::kDevicesPerDriver devices' rounds as activities, each device's steps in the order a
// device actor takes them (device_actor.cpp: receive, its steps, push), and each bookkeeping call at
// the same simulated instant: time ledger, link ledger, liveness, learner, the aggregator's inbox.
// It ends when the last of its devices' updates is delivered, or when the simulation ends (end_simulation tells
// it: it cancels what it waits for and returns; actor_guard.hpp says why it is not killed).
#pragma once

#include <cstdint>
#include <memory>
#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/core/activity_fleet.hpp"
#include "sim/core/messages.hpp"
#include "sim/core/wakeup.hpp"

namespace edgetrain::sim {

struct RunState;

class FleetDriver : public std::enable_shared_from_this<FleetDriver> {
 public:
  FleetDriver(RunState& state, ActivityFleet& fleet, std::vector<FleetJob> jobs);
  void operator()();

 private:
  struct Device {
    size_t index = 0;
    simgrid::s4u::Host* host = nullptr;
    std::unique_ptr<ModelMessage> model;
    std::unique_ptr<UpdateMessage> update;
    std::vector<simgrid::s4u::ExecPtr> steps;  // made by the helper, started one after the other
    size_t step = 0;
    double loss_sum = 0;
  };
  // The Execs of every device's steps, made by an actor that never moves (it ends with the driver).
  void make_steps();
  void send_model(Device& d);
  void model_received(Device& d);
  void start_step(Device& d);
  void step_done(Device& d);
  void push(Device& d);
  void pushed(Device& d);
  void wait_for(const simgrid::s4u::ActivityPtr& activity, size_t device);
  // What follows the end of in_flight_[k] (its device's next activity, or its update's delivery).
  void ended(size_t k);
  // The simulation ends: what is in flight is cancelled, which wakes the driver (from any actor or maestro).
  void stop();

  RunState& state_;
  ActivityFleet& fleet_;
  std::vector<Device> devices_;
  ModelChannel models_;  // the models' mailbox and its receiver
  // What is in flight: one activity per device at a time, and whose it is.
  std::vector<simgrid::s4u::ActivityPtr> in_flight_;
  std::vector<size_t> owner_;
  // The helper's side: steps made, driver done.
  bool steps_made_ = false, done_ = false, stopping_ = false;
  Wakeup helper_;
};

}  // namespace edgetrain::sim
