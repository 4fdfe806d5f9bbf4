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

#include "sim/core/link_ledger.hpp"
#include "sim/core/messages.hpp"
#include "sim/core/wakeup.hpp"

namespace edgetrain::sim {

class DownlinkCourier {
 public:
  explicit DownlinkCourier(const std::string& device);
  // Starts the courier (a daemon) on `host`; its transfers to `device_host` are marked busy in `links`.
  void start(simgrid::s4u::Host* host, const simgrid::s4u::Host* device_host, LinkLedger& links);
  // Leaves `message` for the device.
  void post(std::unique_ptr<Message> message);
  // The device waits with nothing ahead of it: what is posted now is the next message it receives.
  bool device_waits_for_next() const { return device_waiting_ && !putting_ && queue_.empty(); }
  // Drops what waits for the device (it was switched back on: what was sent to it is stale).
  void clear();
  // Device side: the next message, transferred.
  std::unique_ptr<Message> receive();

 private:
  void run();
  // The transfer starts when the second of the two ends is posted: whichever it is marks the
  // route busy; the courier, which sees every transfer end (delivered or cut), unmarks it.
  void begin_transfer();
  simgrid::s4u::Mailbox* mailbox_;
  LinkLedger* links_ = nullptr;
  const simgrid::s4u::Host *from_ = nullptr, *to_ = nullptr;
  bool device_waiting_ = false, putting_ = false, begun_ = false;
  int64_t putting_bytes_ = 0;  // the message being put
  Wakeup posted_;
  std::deque<std::unique_ptr<Message>> queue_;
};

}  // namespace edgetrain::sim
