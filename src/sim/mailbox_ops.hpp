// Mailbox patterns the servers share: replies sent without waiting for them, and receives
// re-posted after a fault failed them.
#pragma once

#include <cstdint>
#include <memory>
#include <simgrid/s4u.hpp>
#include <string>
#include <utility>
#include <vector>

namespace edgetrain::sim {

// Sends `message` to the mailbox `to` and goes on at once. The receiver takes ownership; if the
// transfer fails (the receiver switched off, a link down) or is never received, SimGrid frees
// the message with its clean function. put_init, since a started comm cannot be detached.
template <class T>
void send_detached(const std::string& to, std::unique_ptr<T> message, uint64_t bytes) {
  simgrid::s4u::Mailbox::by_name(to)->put_init(message.release(), bytes)->detach([](void* payload) {
    delete static_cast<T*>(payload);
  });
}

// After Comm::wait_any threw NetworkFailureException: posts a fresh receive in place of each
// failed one (their payloads were never delivered; the senders still own them).
template <class T>
void repost_failed(simgrid::s4u::Mailbox* inbox, std::vector<simgrid::s4u::CommPtr>& receives,
                   std::vector<T*>& slots) {
  for (size_t k = 0; k < receives.size(); ++k) {
    if (receives[k]->get_state() != simgrid::s4u::Activity::State::FAILED) continue;
    slots[k] = nullptr;
    receives[k] = inbox->get_async<T>(&slots[k]);
  }
}

// Of the receives completed by now, the one delivered first. Comm::wait_any returns the completed
// receive with the lowest index, which is not the order of arrival when several completed while
// the server was busy (a device's pull could then be answered before its own earlier push is
// applied). Deliveries at the same instant are ordered by arrival_rank (device index, a push
// before a pull). A receive that a fault failed meanwhile is re-posted (its sender counts it).
template <class T>
size_t earliest_delivered(simgrid::s4u::Mailbox* inbox, std::vector<simgrid::s4u::CommPtr>& receives,
                          std::vector<T*>& slots, size_t completed) {
  auto key = [&](size_t k) { return std::pair{receives[k]->get_finish_time(), arrival_rank(*slots[k])}; };
  size_t best = completed;
  for (size_t k = 0; k < receives.size(); ++k) {
    if (k == best || !receives[k]->test()) continue;
    if (!slots[k]) {
      receives[k] = inbox->get_async<T>(&slots[k]);  // failed: nothing was delivered
    } else if (key(k) < key(best)) {
      best = k;
    }
  }
  return best;
}

// Waits at most `timeout` s (-1: no limit) for a receive to complete. Returns the index of the
// earliest delivered message (see earliest_delivered), -1 at the timeout, or kReceiveFailed when
// a fault failed some receives (they are re-posted; the senders count their failures).
inline constexpr ssize_t kReceiveFailed = -2;
template <class T>
ssize_t wait_receive(simgrid::s4u::Mailbox* inbox, std::vector<simgrid::s4u::CommPtr>& receives, std::vector<T*>& slots,
                     double timeout) {
  ssize_t completed;
  try {
    completed = simgrid::s4u::Comm::wait_any_for(receives, timeout);
  } catch (const simgrid::NetworkFailureException&) {
    repost_failed(inbox, receives, slots);
    return kReceiveFailed;
  }
  if (completed < 0) return completed;
  return static_cast<ssize_t>(earliest_delivered(inbox, receives, slots, static_cast<size_t>(completed)));
}

// Takes the message of completed receive `k` and posts a fresh receive in its place.
template <class T>
std::unique_ptr<T> take_received(simgrid::s4u::Mailbox* inbox, std::vector<simgrid::s4u::CommPtr>& receives,
                                 std::vector<T*>& slots, size_t k) {
  std::unique_ptr<T> message(slots[k]);
  slots[k] = nullptr;  // a null slot marks a receive that delivered nothing (see earliest_delivered)
  receives[k] = inbox->get_async<T>(&slots[k]);
  return message;
}

}  // namespace edgetrain::sim
