// See device_actor.hpp.
#include "sim/device_actor.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <simgrid/s4u.hpp>

#include "sim/downlink.hpp"
#include "sim/messages.hpp"
#include "sim/wire.hpp"
#include "util/seed.hpp"

XBT_LOG_NEW_DEFAULT_CATEGORY(edgetrain_device, "edgetrain device actors");

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

std::vector<int64_t> DeviceActor::next_batch(int64_t batch_size, TimeLedger& ledger) {
  DeviceStream* stream = state_.streams[index_].get();
  report::DeviceRecord& record = state_.devices[index_];
  if (!stream) return state_.static_orders[index_]->take(batch_size);  // static partition: always there
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
  std::vector<int64_t> batch = stream->take(batch_size, at, *record.stream);
  state_.buffer_timeline.record(index_, stream->point(at, record.device));
  return batch;
}

void DeviceActor::uploaded(int64_t bytes, int64_t dense_bytes) {
  report::DeviceRecord& record = state_.devices[index_];
  record.bytes_up += bytes;
  record.bytes_up_uncompressed += dense_bytes;
  state_.bytes_up += bytes;
  state_.links.carried(sg4::this_actor::get_host(), state_.server_host, bytes);
}

void DeviceActor::operator()() {
  try {
    loop();
  } catch (const simgrid::NetworkFailureException&) {
    // The server cancelled its pending receives: the run is over. Nothing was delivered, so
    // nothing is counted; the time ledger is closed by run().
  }
}

void DeviceActor::loop() {
  report::DeviceRecord& record = state_.devices[index_];
  // The ledger lives in the run state: this actor is killed at the end of the run (it is a
  // daemon) and run() closes the ledger's open bucket then.
  TimeLedger& ledger = state_.ledgers[index_];
  auto* inbox = sg4::Mailbox::by_name(mailbox_name(record.device));
  auto* server = sg4::Mailbox::by_name("server");
  const int64_t batch_size = record.batch_size;
  const DeviceStream* stream = state_.streams[index_].get();
  const int64_t shared_sample_bytes =
      (stream ? stream->sample_bytes() : state_.data.train.raw_sample_bytes) + kInjectedLabelBytes;
  UplinkEncoder& uplink = *state_.uplinks[index_];
  const int64_t dense_update_bytes = dense_fp32_bytes(state_.model.num_params());
  // With downlink compression the device keeps its own copy of the model.
  std::optional<DownlinkReplica> replica;
  if (const auto& down = state_.scenario.compression.downlink) {
    replica.emplace(*down, state_.layers, state_.downlink_seeds[index_]);
  }

  const bool async = state_.scenario.training.mode == "async";
  if (async && state_.scenario.training.start_jitter_s > 0) {
    std::mt19937_64 rng(util::derive_seed(state_.scenario.seed, "start-jitter", index_));
    const double delay = std::uniform_real_distribution<double>(0, state_.scenario.training.start_jitter_s)(rng);
    sg4::this_actor::sleep_for(delay);  // charged as wait: the ledger's open bucket
  }

  while (true) {
    if (async) {
      // Pull: a bare header asking for the current model.
      ledger.open(TimeLedger::Bucket::Comm);
      server->put(new AsyncInbound{index_, nullptr}, static_cast<uint64_t>(kHeaderBytes));
      ledger.charge(TimeLedger::Bucket::Comm, sg4::Engine::get_clock());
      uploaded(kHeaderBytes, kHeaderBytes);
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
    const std::vector<float>& params = replica ? replica->params() : *model->params;

    std::vector<int64_t> batch = next_batch(batch_size, ledger);
    // Shared samples are the first of this batch (the device trains on them too).
    std::vector<int64_t> shared(batch.begin(), batch.begin() + std::min<int64_t>(model->share_count, batch_size));
    batch.insert(batch.end(), model->injected.begin(), model->injected.end());
    record.samples_injected_received += static_cast<int64_t>(model->injected.size());

    learn::StepResult step = state_.model.gradient(params, state_.data.train, batch);
    ledger.open(TimeLedger::Bucket::Compute);
    sg4::this_actor::execute(state_.model.step_flops_per_sample() * static_cast<double>(batch.size()));
    ledger.charge(TimeLedger::Bucket::Compute, sg4::Engine::get_clock());

    auto message = std::make_unique<GradientMessage>();
    message->device = index_;
    message->round = model->round;
    message->loss = step.loss;
    message->samples = static_cast<int64_t>(batch.size());
    message->step = record.steps;
    message->update = uplink.encode(step.gradient, record.steps);
    const int64_t shared_bytes = static_cast<int64_t>(shared.size()) * shared_sample_bytes;
    message->bytes = message_bytes(static_cast<int64_t>(message->update.payload.size()) + shared_bytes);
    message->shared_sample_bytes = shared_sample_bytes;
    record.samples_injected_sent += static_cast<int64_t>(shared.size());
    message->shared = std::move(shared);
    const int64_t bytes = message->bytes;
    ledger.open(TimeLedger::Bucket::Comm);
    if (async) {
      server->put(new AsyncInbound{index_, std::move(message)}, static_cast<uint64_t>(bytes));
    } else {
      server->put(message.release(), static_cast<uint64_t>(bytes));  // the server takes ownership
    }
    ledger.charge(TimeLedger::Bucket::Comm, sg4::Engine::get_clock());
    uploaded(bytes, message_bytes(dense_update_bytes + shared_bytes));
    record.steps += 1;
    record.samples_trained += batch_size;
    XBT_DEBUG("%s: step %ld done, loss %.4f", record.device.c_str(), static_cast<long>(record.steps), step.loss);
  }
}

}  // namespace edgetrain::sim
