// See inbox.hpp.
#include "sim/inbox.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

Inbox::Inbox(sg4::Host* host) : host_(host) {}

Inbox::Queue::~Queue() {
  while (!empty()) {
    delete top().message;
    pop();
  }
}

void Inbox::deliver(std::unique_ptr<Message> message, size_t rank) {
  queue_.push({sg4::Engine::get_clock(), rank, sequence_++, message.release()});
  changed_->notify_all();
}

void Inbox::poke() {
  poked_ = true;
  changed_->notify_all();
}

std::unique_ptr<Message> Inbox::next(double deadline) {
  std::unique_lock lock(*mutex_);
  while (queue_.empty() && !poked_) {
    if (deadline < 0) {
      changed_->wait(lock);
    } else if (sg4::Engine::get_clock() >= deadline ||
               changed_->wait_until(lock, deadline) == std::cv_status::timeout) {
      return nullptr;
    }
  }
  poked_ = false;
  if (queue_.empty()) return nullptr;
  std::unique_ptr<Message> message(queue_.top().message);
  queue_.pop();
  return message;
}

}  // namespace edgetrain::sim
