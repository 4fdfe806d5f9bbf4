// See downlink_courier.hpp.
#include "sim/core/downlink_courier.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

DownlinkCourier::DownlinkCourier(const std::string& device) : mailbox_(sg4::Mailbox::by_name("down/" + device)) {}

// The courier runs no LibTorch and calls nothing deep: a small stack, so that a fleet's couriers
// cost little memory.
constexpr unsigned kCourierStackKiB = 16;  // Actor::set_stacksize counts KiB

void DownlinkCourier::start(sg4::Host* host, const sg4::Host* device_host, LinkLedger& links) {
  links_ = &links;
  from_ = host;
  to_ = device_host;
  sg4::Actor::init("courier/" + mailbox_->get_name(), host)
      ->set_stacksize(kCourierStackKiB)
      ->start([this] { run(); })
      ->daemonize();
}

void DownlinkCourier::post(std::unique_ptr<Message> message) {
  queue_.push_back(std::move(message));
  posted_.notify_one();
}

void DownlinkCourier::clear() {
  queue_.clear();
  mailbox_->clear();  // a put in progress is cancelled: the courier drops that message
}

void DownlinkCourier::begin_transfer() {
  if (begun_) return;
  links_->begin(from_, to_, putting_bytes_);
  begun_ = true;
}

std::unique_ptr<Message> DownlinkCourier::receive() {
  device_waiting_ = true;
  if (putting_) begin_transfer();
  struct Done {  // also when the device is killed while it waits
    bool& waiting;
    ~Done() { waiting = false; }
  } done{device_waiting_};
  return std::unique_ptr<Message>(mailbox_->get<Message>());
}

void DownlinkCourier::run() {
  while (true) {
    posted_.wait([this] { return !queue_.empty(); });
    std::unique_ptr<Message> message = std::move(queue_.front());
    queue_.pop_front();
    putting_ = true;
    putting_bytes_ = message->bytes;
    if (device_waiting_) begin_transfer();
    try {
      mailbox_->put(message.get(), static_cast<uint64_t>(message->bytes));
      (void)message.release();  // delivered: the device owns it
    } catch (const simgrid::Exception&) {
      // A fault cut the transfer, or the device's mailbox was cleared: the message is dropped.
    }
    putting_ = false;
    if (begun_) links_->end(from_, to_);
    begun_ = false;
  }
}

}  // namespace edgetrain::sim
