// See device_actor.hpp.
#include "sim/device_actor.hpp"

#include <algorithm>
#include <cmath>
#include <simgrid/s4u.hpp>

#include "sim/messages.hpp"
#include "sim/wire.hpp"

XBT_LOG_NEW_DEFAULT_CATEGORY(edgetrain_device, "edgetrain device actors");

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

DeviceActor::DeviceActor(RunState& state, size_t index, stream::SampleOrder order)
    : state_(state), index_(index), order_(std::move(order)) {}

void DeviceActor::operator()() {
  report::DeviceRecord& record = state_.devices[index_];
  // The ledger lives in the run state: this actor is killed at the end of the run (it is a
  // daemon) and run() closes the ledger's open bucket then.
  TimeLedger& ledger = state_.ledgers[index_];
  auto* inbox = sg4::Mailbox::by_name(mailbox_name(record.device));
  auto* server = sg4::Mailbox::by_name("server");
  const int64_t batch_size = state_.scenario.training.batch_size;
  const double step_flops = state_.model.step_flops_per_sample() * static_cast<double>(batch_size);

  while (true) {
    ledger.open(TimeLedger::Bucket::Wait);
    auto model = inbox->get_unique<ModelMessage>();
    const double received = sg4::Engine::get_clock();
    // The transfer began when both ends were posted; before that the device was idle.
    ledger.charge(TimeLedger::Bucket::Wait, std::min(received, std::max(model->posted_at_s, ledger.mark())));
    ledger.charge(TimeLedger::Bucket::Comm, received);
    record.bytes_down += model->bytes;
    state_.bytes_down += model->bytes;

    const std::vector<int64_t> batch = order_.take(batch_size);
    learn::StepResult step = state_.model.gradient(*model->params, state_.data.train, batch);
    ledger.open(TimeLedger::Bucket::Compute);
    sg4::this_actor::execute(step_flops);
    ledger.charge(TimeLedger::Bucket::Compute, sg4::Engine::get_clock());

    auto message = std::make_unique<GradientMessage>();
    message->device = index_;
    message->round = model->round;
    message->loss = step.loss;
    message->samples = batch_size;
    message->bytes = message_bytes(dense_fp32_bytes(static_cast<int64_t>(step.gradient.size())));
    message->gradient = std::move(step.gradient);
    const int64_t bytes = message->bytes;
    ledger.open(TimeLedger::Bucket::Comm);
    server->put(message.release(), static_cast<uint64_t>(bytes));  // the server takes ownership
    ledger.charge(TimeLedger::Bucket::Comm, sg4::Engine::get_clock());
    record.bytes_up += bytes;
    record.steps += 1;
    record.samples_trained += batch_size;
    XBT_DEBUG("%s: step %ld done, loss %.4f", record.device.c_str(), static_cast<long>(record.steps), step.loss);
  }
}

}  // namespace edgetrain::sim
