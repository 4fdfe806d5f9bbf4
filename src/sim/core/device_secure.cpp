// See device_secure.hpp.
#include "sim/core/device_secure.hpp"

#include <simgrid/s4u.hpp>

#include "sim/core/wire.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

DeviceSecureRound::DeviceSecureRound(RunState& state, size_t device, Inbox& upstream, const ModelMessage& model,
                                     TimeLedger& ledger)
    : state_(state),
      device_(device),
      upstream_(upstream),
      draw_(model.secure_draw),
      protocol_(model.secure),
      ledger_(ledger) {}

std::optional<backend::ProtocolMessage> DeviceSecureRound::await() {
  ledger_.open_wait();
  std::unique_ptr<SecureMessage> message =
      expect<SecureMessage>(state_.courier(device_).receive(), "device " + state_.devices[device_].device);
  const double received = sg4::Engine::get_clock();
  ledger_.charge(TimeLedger::Bucket::Wait, received);
  state_.count_download(device_, message->from, sg4::this_actor::get_host(), message->bytes);
  // An abort: the aggregator let this device go when it sent it (RunState's liveness cleared there), and may
  // have opened its next round since, whose flags are not this round's to clear.
  if (message->abort) return std::nullopt;
  if (message->round != draw_) {
    leave();
    return std::nullopt;
  }
  return std::move(message->message);
}

void DeviceSecureRound::answer(backend::Phase phase, const backend::ProtocolMessage& from_server) {
  double flops = 0;
  auto message = std::make_unique<SecureMessage>();
  message->device = device_;
  message->round = draw_;
  message->phase = phase;
  message->message = protocol_->answer(device_, phase, from_server, {}, flops);
  message->bytes = message_bytes(message->message.bytes);
  ledger_.open(TimeLedger::Bucket::Compute);
  sg4::this_actor::execute(flops);
  ledger_.charge(TimeLedger::Bucket::Compute, sg4::Engine::get_clock());
  ledger_.open(TimeLedger::Bucket::Comm);
  {
    const LinkLedger::Transfer busy(state_.links, sg4::this_actor::get_host(), upstream_.host(), message->bytes);
    upstream_.send(state_.lane(device_), std::move(message));
  }
  ledger_.charge(TimeLedger::Bucket::Comm, sg4::Engine::get_clock());
}

void DeviceSecureRound::leave() {
  DeviceLiveness& live = state_.live[device_];
  live.in_secure_round = false;
  live.model_outstanding = false;  // nothing more comes from it this round
}

bool DeviceSecureRound::key_phases() {
  answer(backend::Phase::advertise_keys, {});
  for (backend::Phase phase : {backend::Phase::share_keys, backend::Phase::masked_input}) {
    std::optional<backend::ProtocolMessage> next = await();
    if (!next) return false;
    if (phase == backend::Phase::masked_input) {
      from_server_ = std::move(*next);
      return true;
    }
    answer(phase, *next);
  }
  return true;
}

void DeviceSecureRound::masked_input(UpdateMessage& message) {
  double flops = 0;
  message.masked = protocol_->answer(device_, backend::Phase::masked_input, from_server_,
                                     state_.backend.device(device_).secure_input(), flops);
  message.bytes = message_bytes(message.masked.bytes);
  ledger_.open(TimeLedger::Bucket::Compute);
  sg4::this_actor::execute(flops);
  ledger_.charge(TimeLedger::Bucket::Compute, sg4::Engine::get_clock());
}

void DeviceSecureRound::closing_phases() {
  for (backend::Phase phase : {backend::Phase::consistency, backend::Phase::unmasking}) {
    std::optional<backend::ProtocolMessage> next = await();
    if (!next) return;  // out of the round (see await)
    answer(phase, *next);
  }
  // Done. The aggregator lets it go when it closes unmasking: cleared here, at the instant its answer lands,
  // the aggregator would take it for gone before reading that answer (and close with fewer shares).
}

}  // namespace edgetrain::sim
