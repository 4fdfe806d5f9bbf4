// See device_actor.hpp.
#include "sim/device_actor.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <simgrid/s4u.hpp>

#include "learn/sgd.hpp"
#include "sim/downlink.hpp"
#include "sim/wire.hpp"
#include "util/seed.hpp"

XBT_LOG_NEW_DEFAULT_CATEGORY(edgetrain_device, "edgetrain device actors");

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

std::vector<int64_t> DeviceActor::next_batch(int64_t batch_size, TimeLedger& ledger) {
  DeviceStream* stream = state_.streams[index_].get();
  report::DeviceRecord& record = state_.devices[index_];
  std::vector<int64_t> batch;
  if (!stream) {
    batch = state_.static_orders[index_]->take(batch_size);  // static partition: always there
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
    batch = stream->take(batch_size, at, *record.stream);
    state_.buffer_timeline.record(index_, stream->point(at, record.device));
  }
  state_.live[index_].held_samples += batch_size;
  return batch;
}

std::vector<float> DeviceActor::train(const std::vector<float>& params, const ModelMessage& model,
                                      GradientMessage& message, TimeLedger& ledger) {
  const scenario::TrainingSpec& training = state_.scenario.training;
  const int64_t batch_size = state_.devices[index_].batch_size;
  const int64_t steps = local_sgd_ ? training.local_steps : 1;
  std::vector<float> local;  // local-sgd: the device's own copy, trained in place
  learn::Sgd local_optimizer(0.0, training.weight_decay);
  if (local_sgd_) local = params;
  double loss_sum = 0;
  for (int64_t s = 0; s < steps; ++s) {
    std::vector<int64_t> batch = next_batch(batch_size, ledger);
    if (s == 0) {
      // Data injection (scadles): shared samples are the first of this batch (the device
      // trains on them too), and the samples others shared are trained on in addition.
      message.shared.assign(batch.begin(), batch.begin() + std::min<int64_t>(model.share_count, batch_size));
      batch.insert(batch.end(), model.injected.begin(), model.injected.end());
      state_.devices[index_].samples_injected_received += static_cast<int64_t>(model.injected.size());
    }
    learn::StepResult step = state_.model.gradient(local_sgd_ ? local : params, state_.data.train, batch);
    ledger.open(TimeLedger::Bucket::Compute);
    sg4::this_actor::execute(state_.model.step_flops_per_sample() * static_cast<double>(batch.size()));
    ledger.charge(TimeLedger::Bucket::Compute, sg4::Engine::get_clock());
    loss_sum += step.loss;
    message.samples += static_cast<int64_t>(batch.size());
    message.own_samples += batch_size;
    if (!local_sgd_) {
      message.loss = step.loss;
      return std::move(step.gradient);
    }
    local_optimizer.step(local, step.gradient, training.lr);
  }
  message.loss = loss_sum / static_cast<double>(steps);
  // The delta pulled - local: applied by the server like a gradient (FedAvg at server_lr 1).
  for (size_t k = 0; k < local.size(); ++k) local[k] = params[k] - local[k];
  return local;
}

void DeviceActor::update_once(TimeLedger& ledger, DownlinkReplica* replica) {
  report::DeviceRecord& record = state_.devices[index_];
  DeviceLiveness& live = state_.live[index_];
  auto* inbox = sg4::Mailbox::by_name(mailbox_name(record.device));
  auto* server = sg4::Mailbox::by_name("server");
  if (on_arrival_) {
    // Pull: a bare header asking for the current model (the server counts it on delivery).
    ledger.open(TimeLedger::Bucket::Comm);
    auto pull = std::make_unique<AsyncInbound>(AsyncInbound{index_, nullptr});
    server->put(pull.get(), static_cast<uint64_t>(kHeaderBytes));
    (void)pull.release();  // delivered: the server owns it
    ledger.charge(TimeLedger::Bucket::Comm, sg4::Engine::get_clock());
  }
  ledger.open(TimeLedger::Bucket::Wait);
  auto model = inbox->get_unique<ModelMessage>();
  const double received = sg4::Engine::get_clock();
  // The transfer began when both ends were posted; before that the device was idle.
  ledger.charge(TimeLedger::Bucket::Wait, std::min(received, std::max(model->posted_at_s, ledger.mark())));
  ledger.charge(TimeLedger::Bucket::Comm, received);
  record.bytes_down += model->bytes;
  state_.bytes_down += model->bytes;
  state_.links.carried(state_.server_host, sg4::this_actor::get_host(), model->bytes);
  if (replica) {
    if (model->delta) {
      replica->apply_delta(*model->delta, model->round);
    } else {
      replica->set(*model->params);
    }
  }

  auto message = std::make_unique<GradientMessage>();
  message->device = index_;
  message->round = model->round;
  const std::vector<float> update = train(replica ? replica->params() : *model->params, *model, *message, ledger);
  message->step = live.encoded++;
  message->update = state_.uplinks[index_]->encode(update, message->step);
  const int64_t shared_sample_bytes =
      (state_.streams[index_] ? state_.streams[index_]->sample_bytes() : state_.data.train.raw_sample_bytes) +
      kInjectedLabelBytes;
  const int64_t shared_bytes = static_cast<int64_t>(message->shared.size()) * shared_sample_bytes;
  message->bytes = message_bytes(static_cast<int64_t>(message->update.payload.size()) + shared_bytes);
  message->dense_bytes = message_bytes(dense_fp32_bytes(state_.model.num_params()) + shared_bytes);
  message->shared_sample_bytes = shared_sample_bytes;
  record.samples_injected_sent += static_cast<int64_t>(message->shared.size());
  const auto bytes = static_cast<uint64_t>(message->bytes);
  ledger.open(TimeLedger::Bucket::Comm);
  live.pushing = true;
  // The message stays ours until the transfer completes: a failed or killed transfer frees it.
  if (on_arrival_) {
    auto push = std::make_unique<AsyncInbound>(AsyncInbound{index_, std::move(message)});
    server->put(push.get(), bytes);
    (void)push.release();
  } else {
    server->put(message.get(), bytes);
    (void)message.release();
  }
  ledger.charge(TimeLedger::Bucket::Comm, sg4::Engine::get_clock());
}

void DeviceActor::operator()() {
  TimeLedger& ledger = state_.ledgers[index_];
  const scenario::TrainingSpec& training = state_.scenario.training;
  if (on_arrival_ && training.start_jitter_s > 0 && state_.devices[index_].restarts == 0) {
    std::mt19937_64 rng(util::derive_seed(state_.scenario.seed, "start-jitter", index_));
    const double delay = std::uniform_real_distribution<double>(0, training.start_jitter_s)(rng);
    sg4::this_actor::sleep_for(delay);  // charged as wait: the ledger's open bucket
  }
  // With downlink compression the device keeps its own copy of the model, updated by the deltas.
  std::optional<DownlinkReplica> replica;
  if (const auto& down = state_.scenario.compression.downlink) {
    replica.emplace(*down, state_.layers, state_.downlink_seeds[index_]);
  }
  while (true) {
    try {
      update_once(ledger, replica ? &*replica : nullptr);
    } catch (const simgrid::NetworkFailureException&) {
      // At the end of the run the server cancels its receives: nothing failed, the run is over.
      if (state_.stopping()) return;
      const double now = sg4::Engine::get_clock();
      ledger.finish(now);  // the time spent on the failed transfer, in the bucket it was open in
      state_.count_failed(index_, state_.live[index_].pushing);
      ledger.open(TimeLedger::Bucket::Wait);
      sg4::this_actor::sleep_for(state_.scenario.faults ? state_.scenario.faults->retry_s : 1.0);
    }
  }
}

}  // namespace edgetrain::sim
