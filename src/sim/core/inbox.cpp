// See inbox.hpp.
#include "sim/core/inbox.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

size_t Inbox::connect(const std::string& sender) {
  lanes_.push_back(sg4::Mailbox::by_name(name_ + "/" + sender));
  return lanes_.size() - 1;
}

void Inbox::set_owner(const sg4::ActorPtr& owner) {
  for (sg4::Mailbox* lane : lanes_) lane->set_receiver(owner);
}

void Inbox::arrived(size_t lane, size_t rank) {
  notices_.push({sg4::Engine::get_clock(), rank, sequence_++, lane});
  changed_.notify_all();
}

void Inbox::poke() {
  poked_ = true;
  changed_.notify_all();
}

std::unique_ptr<Message> Inbox::next(double deadline) {
  const auto ready = [this] { return !notices_.empty() || poked_; };
  if (deadline < 0) {
    changed_.wait(ready);
  } else if (!changed_.wait_until(deadline, ready)) {
    return nullptr;
  }
  poked_ = false;
  if (notices_.empty()) return nullptr;
  if (settled_)
    while (!settled_()) sg4::this_actor::yield();
  sg4::Mailbox* lane = lanes_[notices_.top().lane];
  notices_.pop();
  // The lane holds the delivered message, after any transfer of the same sender that a fault cut
  // (failed: nothing to take).
  while (true) {
    try {
      return std::unique_ptr<Message>(lane->get<Message>());
    } catch (const simgrid::Exception&) {
      continue;
    }
  }
}

}  // namespace edgetrain::sim
