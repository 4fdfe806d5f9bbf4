// See secure_phases.hpp.
#include "sim/aggregate/secure_phases.hpp"

#include <algorithm>
#include <simgrid/s4u.hpp>

#include "input/error.hpp"
#include "privacy/secagg/config.hpp"
#include "sim/core/wire.hpp"
#include "util/seed.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

using backend::Phase;

namespace {
size_t index_of(Phase phase) { return static_cast<size_t>(phase); }
}  // namespace

SecurePhases::SecurePhases(RunState& state, Inbox& inbox, int64_t draw, std::vector<size_t> participants,
                           double started)
    : state_(state),
      inbox_(inbox),
      draw_(draw),
      asked_(std::move(participants)),
      answered_(state.devices.size(), false),
      opened_(started) {
  std::sort(asked_.begin(), asked_.end());
  const uint64_t seed = util::derive_seed(state.scenario.seed, "secure-aggregation", static_cast<uint64_t>(draw));
  try {
    protocol_ = std::make_shared<backend::SecureRound>(state.scenario, asked_, state.backend.cost().params, seed,
                                                       state.backend.trains());
  } catch (const input::Error& e) {
    // Too few devices on this round (faults, availability): the set-up checked the round size planned.
    failure_ = std::string("secure aggregation: ") + e.what();
    record_.failed_phase = report::kSecurePhases[0];
    return;
  }
  for (size_t device : asked_) state_.live[device].in_secure_round = true;
}

void SecurePhases::send(size_t device, std::unique_ptr<SecureMessage> message, Phase phase) {
  message->device = device;
  message->round = draw_;
  message->from = inbox_.host();
  message->bytes = message_bytes(message->message.bytes);
  record_.bytes[index_of(phase)] += message->bytes;
  state_.courier(device).post(std::move(message));
}

// A bare header telling the device its part in the round is over; it no longer owes an update.
void SecurePhases::abort(size_t device, Phase phase) {
  DeviceLiveness& live = state_.live[device];
  if (!live.on || !live.in_secure_round) return;
  live.in_secure_round = false;
  live.model_outstanding = false;
  auto message = std::make_unique<SecureMessage>();
  message->abort = true;
  send(device, std::move(message), phase);
}

bool SecurePhases::close(Phase phase) {
  const size_t p = index_of(phase);
  backend::PhaseOutcome outcome = protocol_->close(phase);
  if (phase == Phase::unmasking && !outcome.failed()) sg4::this_actor::execute(outcome.server_flops);
  const double now = sg4::Engine::get_clock();
  record_.seconds[p] = now - opened_;
  opened_ = now;
  if (outcome.failed()) {
    failure_ = outcome.failure;
    record_.failed_phase = report::kSecurePhases[p];
    for (size_t device : asked_) abort(device, phase);
  } else {
    for (size_t device : asked_)
      if (!answered_[device]) abort(device, phase);  // too late: the protocol went on without it
    if (phase == Phase::unmasking) {
      for (size_t device : outcome.answered) state_.live[device].in_secure_round = false;  // their part is over
    } else {
      const Phase next = static_cast<Phase>(p + 1);
      // What the aggregator sends on belongs to the phase it closes (Bonawitz et al.'s rounds: the
      // adverts it broadcasts in round 0, the shares it forwards in round 1).
      for (auto& [device, message] : outcome.next) {
        auto out = std::make_unique<SecureMessage>();
        out->phase = next;
        out->message = std::move(message);
        send(device, std::move(out), phase);
      }
    }
  }
  for (size_t device : asked_) answered_[device] = false;
  asked_ = std::move(outcome.answered);
  return !outcome.failed();
}

bool SecurePhases::collect(Phase phase, double deadline, const LateUpdate& late) {
  const auto& timeout = state_.scenario.privacy.secure_aggregation->phase_timeout_s;
  const double closes = timeout ? opened_ + *timeout : -1;
  const double until = closes < 0 ? deadline : (deadline < 0 ? closes : std::min(closes, deadline));
  // Whether someone still owes this phase an answer. A device that stops owing (it answered, went off
  // or was let go, which clears in_secure_round for the round) never owes again in the phase, so the
  // scan resumes where it stopped: linear in the participants per phase, not per message.
  size_t waiting = 0;
  auto owed = [&] {
    auto owes = [&](size_t d) { return !answered_[d] && state_.live[d].on && state_.live[d].in_secure_round; };
    while (waiting < asked_.size() && !owes(asked_[waiting])) ++waiting;
    return waiting < asked_.size();
  };
  while (owed()) {
    std::unique_ptr<Message> next = inbox_.next(until);
    if (!next) {
      if (until >= 0 && sg4::Engine::get_clock() >= until) {
        if (deadline >= 0 && sg4::Engine::get_clock() >= deadline) {
          ended_ = true;
          return false;
        }
        break;  // the phase closes with who answered
      }
      continue;  // poked: a participant went off
    }
    if (dynamic_cast<UpdateMessage*>(next.get())) {
      late(expect<UpdateMessage>(std::move(next), "aggregator"));
      continue;
    }
    const std::unique_ptr<SecureMessage> answer =
        expect<SecureMessage>(std::move(next), "aggregator on " + inbox_.host()->get_name());
    state_.count_upload(answer->device, inbox_.host(), answer->bytes, answer->bytes);
    const bool asked = std::binary_search(asked_.begin(), asked_.end(), answer->device);
    if (answer->round != draw_ || answer->phase != phase || !asked || answered_[answer->device]) continue;  // stale
    protocol_->receive(phase, answer->device, answer->message);
    answered_[answer->device] = true;
    record_.bytes[index_of(phase)] += answer->bytes;
  }
  return close(phase);
}

bool SecurePhases::key_phases(double deadline, const LateUpdate& late) {
  return collect(Phase::advertise_keys, deadline, late) && collect(Phase::share_keys, deadline, late);
}

bool SecurePhases::expects(size_t device) const {
  return std::binary_search(asked_.begin(), asked_.end(), device) && !answered_[device];
}

void SecurePhases::masked(const UpdateMessage& update) {
  protocol_->receive(Phase::masked_input, update.device, update.masked);
  answered_[update.device] = true;
  record_.bytes[index_of(Phase::masked_input)] += update.bytes;
}

report::SecureRoundRecord SecurePhases::record() const {
  report::SecureRoundRecord out = record_;
  out.clipped_coordinates = protocol_->clipped_coordinates();
  return out;
}

bool SecurePhases::closing_phases(double deadline, const LateUpdate& late) {
  return close(Phase::masked_input) && collect(Phase::consistency, deadline, late) &&
         collect(Phase::unmasking, deadline, late);
}

}  // namespace edgetrain::sim
