// An aggregator's inbox. A sender transfers its message with Comm::sendto (a real SimGrid
// communication over the platform route, sharing links with every other transfer, matched with
// no receive) and delivers it here when the transfer completes, so uploads proceed concurrently
// without the aggregator posting one receive per device. The aggregator takes messages in
// arrival order: the earliest delivered first, and at the same instant by rank (device index,
// a push before a pull: arrival_rank). Each message costs O(log n), whatever the fleet size.
#pragma once

#include <cstdint>
#include <memory>
#include <queue>
#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/messages.hpp"

namespace edgetrain::sim {

// Order among messages delivered at the same instant: by device index, and a device's push before
// its pull (it posts the pull only once the push is delivered).
inline size_t arrival_rank(const UpdateMessage& m) { return 2 * m.device; }
inline size_t arrival_rank(const PullRequest& m) { return 2 * m.device + 1; }

class Inbox {
 public:
  explicit Inbox(simgrid::s4u::Host* host);
  simgrid::s4u::Host* host() const { return host_; }

  // From the calling actor's host: transfers `message` (message->bytes) and delivers it when
  // the transfer completes. Throws simgrid::NetworkFailureException when a fault cuts it (the
  // message is then lost: the sender counts it).
  template <class T>
  void send(std::unique_ptr<T> message) {
    const size_t rank = arrival_rank(*message);
    message->from = simgrid::s4u::this_actor::get_host();
    simgrid::s4u::Comm::sendto(simgrid::s4u::this_actor::get_host(), host_, static_cast<uint64_t>(message->bytes));
    deliver(std::move(message), rank);
  }
  // Something the owner may be waiting for changed without a message (a member failed).
  void poke();
  // The next message in arrival order, waiting for one until `deadline` (-1: no limit). Null at
  // the deadline, or when poked.
  std::unique_ptr<Message> next(double deadline);

 private:
  void deliver(std::unique_ptr<Message> message, size_t rank);
  struct Entry {
    double at;
    size_t rank;
    uint64_t sequence;
    Message* message;  // owned by the queue
    bool operator>(const Entry& o) const {
      if (at != o.at) return at > o.at;
      if (rank != o.rank) return rank > o.rank;
      return sequence > o.sequence;
    }
  };
  struct Queue : std::priority_queue<Entry, std::vector<Entry>, std::greater<>> {
    ~Queue();
  };

  simgrid::s4u::Host* host_;
  simgrid::s4u::MutexPtr mutex_ = simgrid::s4u::Mutex::create();
  simgrid::s4u::ConditionVariablePtr changed_ = simgrid::s4u::ConditionVariable::create();
  Queue queue_;
  uint64_t sequence_ = 0;
  bool poked_ = false;
};

}  // namespace edgetrain::sim
