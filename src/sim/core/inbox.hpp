// The inbox of an aggregator: what its members send it (updates, pull requests), taken in
// arrival order (the earliest delivered first; at the same instant by rank: device index, a push
// before a pull, arrival_rank). Each sender has a lane of its own, a mailbox whose permanent
// receiver is the aggregator: a transfer starts as soon as it is sent (uploads proceed
// concurrently and contend on shared links) without the aggregator posting a receive per
// device, and SimGrid matches it in O(1). When its transfer completes the sender leaves a notice
// here; the aggregator takes the notices from a priority queue, so each message costs O(log n),
// whatever the fleet size.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "sim/core/messages.hpp"
#include "sim/core/wakeup.hpp"

namespace edgetrain::sim {

// Order among messages delivered at the same instant: by device index, and a device's push before
// its pull (it posts the pull only once the push is delivered). A message between a topology's own
// aggregators declares its arrival_rank beside it (send finds it by argument-dependent lookup).
inline size_t arrival_rank(const UpdateMessage& m) { return 2 * m.device; }
inline size_t arrival_rank(const PullRequest& m) { return 2 * m.device + 1; }
inline size_t arrival_rank(const SecureMessage& m) { return 2 * m.device; }  // a device sends one at a time

class Inbox {
 public:
  Inbox(simgrid::s4u::Host* host, std::string name) : host_(host), name_(std::move(name)) {}
  simgrid::s4u::Host* host() const { return host_; }

  // A new sender's lane (call before the simulation starts).
  size_t connect(const std::string& sender);
  // The actor that takes the messages: every lane's permanent receiver.
  void set_owner(const simgrid::s4u::ActorPtr& owner);

  // From the calling actor: transfers `message` (message->bytes) on `lane` and returns when it is
  // delivered. Throws simgrid::NetworkFailureException when a fault cuts it; the message is then
  // lost (the sender counts it).
  template <class T>
  void send(size_t lane, std::unique_ptr<T> message) {
    const size_t rank = arrival_rank(*message);
    message->from = simgrid::s4u::this_actor::get_host();
    lanes_.at(lane)->put(static_cast<Message*>(message.get()), static_cast<uint64_t>(message->bytes));
    (void)message.release();  // delivered: the owner takes it from the lane
    arrived(lane, rank);
  }
  // The activity path (activity_fleet.hpp): a lane's mailbox, on which a fleet driver starts a device's
  // transfer on its behalf, and the notice it leaves once that transfer is delivered (what send does
  // after its put returns).
  simgrid::s4u::Mailbox* lane(size_t lane) const { return lanes_.at(lane); }
  void delivered(size_t lane, size_t rank) { arrived(lane, rank); }
  // Those drivers deliver an instant's updates one after the other: the owner takes none until
  // `settled()` says every one of that instant is in (it yields meanwhile; simulated time stands still).
  void set_settling(std::function<bool()> settled) { settled_ = std::move(settled); }
  // Something the owner may be waiting for changed without a message (a member failed).
  void poke();
  // The next message in arrival order, waiting for one until `deadline` (-1: no limit). Null at
  // the deadline, or when poked.
  std::unique_ptr<Message> next(double deadline);

 private:
  void arrived(size_t lane, size_t rank);
  struct Notice {
    double at;
    size_t rank;
    uint64_t sequence;
    size_t lane;
    bool operator>(const Notice& o) const {
      if (at != o.at) return at > o.at;
      if (rank != o.rank) return rank > o.rank;
      return sequence > o.sequence;
    }
  };
  simgrid::s4u::Host* host_;
  std::string name_;
  std::vector<simgrid::s4u::Mailbox*> lanes_;
  Wakeup changed_;
  std::priority_queue<Notice, std::vector<Notice>, std::greater<>> notices_;
  uint64_t sequence_ = 0;
  bool poked_ = false;
  std::function<bool()> settled_;
};

}  // namespace edgetrain::sim
