// See device_actor.hpp.
#include "sim/core/device_actor.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <simgrid/s4u.hpp>

#include "sim/core/device_round.hpp"
#include "sim/core/device_secure.hpp"
#include "sim/core/split_exchange.hpp"
#include "sim/core/step_charges.hpp"
#include "sim/core/wire.hpp"
#include "util/seed.hpp"

XBT_LOG_NEW_DEFAULT_CATEGORY(edgetrain_device, "edgetrain device actors");

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

std::vector<int64_t> DeviceActor::next_batch(int64_t batch_size, TimeLedger& ledger) {
  DeviceStream* stream = state_.streams[index_].get();
  report::DeviceRecord& record = state_.devices[index_];
  std::vector<int64_t> batch;
  if (!stream) {
    // Static partition: always there. Only real training needs to know which samples.
    if (state_.backend.trains()) {
      batch = state_.static_order(index_).take(batch_size);
    } else {
      state_.static_order(index_).skip(batch_size);
      batch.assign(static_cast<size_t>(batch_size), 0);
    }
  } else {
    const double now = sg4::Engine::get_clock();
    const double ready = stream->prepare_step(batch_size, now);
    state_.buffer_timeline.record(index_, stream->point(now, record.device));
    if (ready > now) {
      ledger.open(TimeLedger::Bucket::Wait);
      sg4::this_actor::sleep_until(ready);
      ledger.charge(TimeLedger::Bucket::Wait, ready);
      record.stream->data_wait_s += ready - now;
    }
    // Exactly the promised time: the clock after a sleep may be a rounding error short of it.
    const double at = std::max(sg4::Engine::get_clock(), ready);
    batch = stream->take(batch_size, at, *record.stream, state_.backend.trains());
    state_.buffer_timeline.record(index_, stream->point(at, record.device));
  }
  state_.live[index_].held_samples += batch_size;
  return batch;
}

void DeviceActor::train(const ModelMessage& model, UpdateMessage& message, TimeLedger& ledger) {
  backend::DeviceLearner& learner = state_.backend.device(index_);
  const int64_t batch_size = state_.devices[index_].batch_size;
  const int64_t steps = state_.mode.steps_per_update();
  // The first step may have started when the model was posted (early_step.hpp), with this batch.
  std::optional<std::vector<int64_t>> early = state_.early_steps ? state_.early_steps->claim(index_) : std::nullopt;
  if (!early) learner.receive(model.model);
  double loss_sum = 0;
  for (int64_t s = 0; s < steps; ++s) {
    const bool started = s == 0 && early;
    std::vector<int64_t> batch;
    if (started) {
      batch = std::move(*early);
      state_.live[index_].held_samples += batch_size;
    } else {
      batch = next_batch(batch_size, ledger);
    }
    if (s == 0) {
      // Data injection (scadles): shared samples are the first of this batch (the device
      // trains on them too), and the samples others shared are trained on in addition.
      message.shared.assign(batch.begin(), batch.begin() + std::min<int64_t>(model.share_count, batch_size));
      if (!started) batch.insert(batch.end(), model.injected.begin(), model.injected.end());
      state_.devices[index_].samples_injected_received += static_cast<int64_t>(model.injected.size());
    }
    const auto samples = static_cast<int64_t>(batch.size());
    // The real step runs on the pool while the simulated compute goes on.
    if (!started) learner.start_step(std::move(batch));
    ledger.open(TimeLedger::Bucket::Compute);
    if (const strategy::SplitPlan* split = state_.step_charges->split()) {
      // Split learning: the step's server part runs on the aggregator's host, between the device's two halves.
      split_step(state_, index_, upstream_.host(), *split, state_.step_charges->flops(index_, samples), samples, ledger);
    } else if (state_.slots) {
      // On a slot as fast as its site's fastest device: the step runs at this device's own speed.
      sg4::this_actor::exec_init(state_.step_charges->flops(index_, samples))
          ->set_bound(state_.step_charges->host_speed(index_))
          ->wait();
    } else {
      sg4::this_actor::execute(state_.step_charges->flops(index_, samples));
    }
    ledger.charge(TimeLedger::Bucket::Compute, sg4::Engine::get_clock());
    loss_sum += learner.finish_step();
    message.samples += samples;
    message.own_samples += batch_size;
  }
  message.loss = loss_sum / static_cast<double>(steps);
}

void DeviceActor::update_once(TimeLedger& ledger) {
  report::DeviceRecord& record = state_.devices[index_];
  DeviceLiveness& live = state_.live[index_];
  if (state_.mode.applies_on_arrival()) {
    // Pull: a bare header asking for the current model (the aggregator counts it on delivery).
    ledger.open(TimeLedger::Bucket::Comm);
    auto pull = std::make_unique<PullRequest>();
    pull->device = index_;
    pull->bytes = kHeaderBytes;
    const LinkLedger::Transfer busy(state_.links, sg4::this_actor::get_host(), upstream_.host(), pull->bytes);
    upstream_.send(state_.lane(index_), std::move(pull));
    ledger.charge(TimeLedger::Bucket::Comm, sg4::Engine::get_clock());
  }
  ledger.open_wait();
  std::unique_ptr<Message> next = state_.courier(index_).receive();
  // A secure-aggregation message of a round this device left (an abort after a late answer) is stale.
  while (dynamic_cast<SecureMessage*>(next.get())) next = state_.courier(index_).receive();
  const auto model = expect<ModelMessage>(std::move(next), "device " + record.device);
  account_model_received(state_, index_, *model, sg4::this_actor::get_host());

  std::optional<DeviceSecureRound> secure;
  if (model->secure) {
    secure.emplace(state_, index_, upstream_, *model, ledger);
    if (!secure->key_phases()) return;  // the round went on without it
  }
  auto message = std::make_unique<UpdateMessage>();
  message->device = index_;
  message->round = model->round;
  train(*model, *message, ledger);
  message->update = state_.backend.device(index_).finish_update();
  size_update(state_, index_, *message);
  if (secure) secure->masked_input(*message);  // the masked input goes in place of the update
  record.samples_injected_sent += static_cast<int64_t>(message->shared.size());
  ledger.open(TimeLedger::Bucket::Comm);
  live.pushing = true;
  // The message is ours until the transfer completes: a failed or killed transfer frees it.
  {
    const LinkLedger::Transfer busy(state_.links, sg4::this_actor::get_host(), upstream_.host(), message->bytes);
    upstream_.send(state_.lane(index_), std::move(message));
  }
  ledger.charge(TimeLedger::Bucket::Comm, sg4::Engine::get_clock());
  if (secure) secure->closing_phases();
}

void DeviceActor::operator()() {
  TimeLedger& ledger = state_.ledgers[index_];
  if (lifetime_ == Lifetime::OneUpdate) {
    if (!state_.slots->begin(index_)) {
      // Off before it ran: its slot is already free. It yields once first, so that it ends as the daemon
      // its creator makes it (ending before daemonize() would count it twice, and SimGrid would then end
      // every daemon, the run's included).
      sg4::this_actor::yield();
      return;
    }
    // The update is delivered (a device going off meanwhile is evicted: this actor is killed there), then
    // the device waits off its slot for its next selection, as a device of its own host waits on it. One
    // whose transfer failed waits out faults.retry_s on its slot first, as on its own host, and goes on
    // with the model of a round that selected it meanwhile.
    while (true) {
      try {
        update_once(ledger);
        ledger.open_wait();
        break;
      } catch (const simgrid::NetworkFailureException&) {
        if (state_.stopping()) return;  // the run is over: nothing failed
        fail_update(ledger);
        state_.slots->start_retry(index_);
        sg4::this_actor::sleep_for(retry_s());
        if (!state_.slots->end_retry(index_)) break;
      }
    }
    state_.slots->release(index_);
    return;
  }
  const scenario::TrainingSpec& training = state_.scenario.training;
  // A restart after a fault: the update the device was computing when it went off is dropped (and its
  // part in a secure-aggregation round: RunState::count_failed, when it went off).
  state_.backend.device(index_).abandon();
  if (state_.mode.applies_on_arrival() && training.start_jitter_s > 0 && state_.devices[index_].restarts == 0) {
    std::mt19937_64 rng(util::derive_seed(state_.scenario.seed, "start-jitter", index_));
    const double delay = std::uniform_real_distribution<double>(0, training.start_jitter_s)(rng);
    sg4::this_actor::sleep_for(delay);  // charged as wait: the ledger's open bucket
  }
  while (true) {
    try {
      update_once(ledger);
    } catch (const simgrid::NetworkFailureException&) {
      if (state_.stopping()) return;  // the run is over: nothing failed
      fail_update(ledger);
      sg4::this_actor::sleep_for(retry_s());
    }
  }
}

void DeviceActor::fail_update(TimeLedger& ledger) {
  state_.backend.device(index_).abandon();
  ledger.finish(sg4::Engine::get_clock());  // the time spent on the failed transfer, in the bucket it was open in
  state_.count_failed(index_, state_.live[index_].pushing);
  ledger.open(TimeLedger::Bucket::Wait);
}

}  // namespace edgetrain::sim
