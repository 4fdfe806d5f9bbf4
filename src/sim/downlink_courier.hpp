// Aggregator -> device messages (models). The aggregator leaves each message with the device's
// courier, an actor on the aggregator's host, and goes on at once; the courier puts it into the
// device's mailbox, so the transfer starts when both the message and the device are ready (a
// rendezvous), and a fault that cuts it fails it at both ends. One courier per device keeps the
// matching O(1) whatever the fleet size (SimGrid 3.32 keeps every detached transfer in one
// list, which made a round of n detached sends cost O(n^2)).
#pragma once

#include <deque>
#include <memory>
#include <simgrid/s4u.hpp>
#include <string>

#include "sim/messages.hpp"

namespace edgetrain::sim {

class DownlinkCourier {
 public:
  explicit DownlinkCourier(const std::string& device);
  // Starts the courier (a daemon) on `host`.
  void start(simgrid::s4u::Host* host);
  // Leaves `message` for the device.
  void post(std::unique_ptr<Message> message);
  // Drops what waits for the device (it was switched back on: what was sent to it is stale).
  void clear();
  // Device side: the next message, transferred.
  std::unique_ptr<Message> receive() { return std::unique_ptr<Message>(mailbox_->get<Message>()); }

 private:
  void run();
  simgrid::s4u::Mailbox* mailbox_;
  simgrid::s4u::MutexPtr mutex_ = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr posted_ = simgrid::s4u::ConditionVariable::create();
  std::deque<std::unique_ptr<Message>> queue_;
};

}  // namespace edgetrain::sim
