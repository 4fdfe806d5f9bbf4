// See downlink_courier.hpp.
#include "sim/downlink_courier.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

DownlinkCourier::DownlinkCourier(const std::string& device) : mailbox_(sg4::Mailbox::by_name("down/" + device)) {}

// The courier runs no LibTorch and calls nothing deep: a small stack, so that a fleet's couriers
// cost little memory.
constexpr unsigned kCourierStackKiB = 16;  // Actor::set_stacksize counts KiB

void DownlinkCourier::start(sg4::Host* host) {
  sg4::Actor::init("courier/" + mailbox_->get_name(), host)
      ->set_stacksize(kCourierStackKiB)
      ->start([this] { run(); })
      ->daemonize();
}

void DownlinkCourier::post(std::unique_ptr<Message> message) {
  queue_.push_back(std::move(message));
  posted_->notify_one();
}

void DownlinkCourier::clear() {
  queue_.clear();
  mailbox_->clear();  // a put in progress is cancelled: the courier drops that message
}

void DownlinkCourier::run() {
  while (true) {
    {
      std::unique_lock lock(*mutex_);
      while (queue_.empty()) posted_->wait(lock);
    }
    std::unique_ptr<Message> message = std::move(queue_.front());
    queue_.pop_front();
    try {
      mailbox_->put(message.get(), static_cast<uint64_t>(message->bytes));
      (void)message.release();  // delivered: the device owns it
    } catch (const simgrid::Exception&) {
      // A fault cut the transfer, or the device's mailbox was cleared: the message is dropped.
    }
  }
}

}  // namespace edgetrain::sim
