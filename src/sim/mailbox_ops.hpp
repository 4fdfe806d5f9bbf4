// Model messages to devices: sent without waiting for them. Each device receives from its own
// mailbox, so only its own messages are ever matched there.
#pragma once

#include <cstdint>
#include <memory>
#include <simgrid/s4u.hpp>
#include <string>

#include "sim/messages.hpp"

namespace edgetrain::sim {

// Sends `message` to the mailbox `to` and goes on at once. The receiver takes ownership (as a
// Message: see expect); if the transfer fails (the receiver switched off, a link down) or is
// never received, SimGrid frees the message with its clean function. put_init, since a started
// comm cannot be detached.
template <class T>
void send_detached(const std::string& to, std::unique_ptr<T> message, uint64_t bytes) {
  Message* base = message.release();
  simgrid::s4u::Mailbox::by_name(to)->put_init(base, bytes)->detach([](void* payload) {
    delete static_cast<Message*>(payload);
  });
}

}  // namespace edgetrain::sim
