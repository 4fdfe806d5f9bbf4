// Mailbox patterns the servers share: replies sent without waiting for them, and receives
// re-posted after a fault failed them.
#pragma once

#include <cstdint>
#include <memory>
#include <simgrid/s4u.hpp>
#include <string>
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

// Comm::wait_any_for over `receives` for at most `timeout` s (-1: no limit). Returns the index of
// a completed receive, -1 at the timeout, or kReceiveFailed when a fault failed some receives
// (they are re-posted; the senders count their failures).
inline constexpr ssize_t kReceiveFailed = -2;
template <class T>
ssize_t wait_receive(simgrid::s4u::Mailbox* inbox, std::vector<simgrid::s4u::CommPtr>& receives,
                     std::vector<T*>& slots, double timeout) {
  try {
    return simgrid::s4u::Comm::wait_any_for(receives, timeout);
  } catch (const simgrid::NetworkFailureException&) {
    repost_failed(inbox, receives, slots);
    return kReceiveFailed;
  }
}

}  // namespace edgetrain::sim
