// See fleet_driver.hpp. Each handler below is the part of DeviceActor::update_once (device_actor.cpp)
// between two of its blocking calls, for the features the activity path serves (device_path.cpp):
// no stream, no injection, no secure round, no split model, no fault.
#include "sim/core/fleet_driver.hpp"

#include <string>

#include "sim/core/actor_guard.hpp"
#include "sim/core/device_round.hpp"
#include "sim/core/energy_meter.hpp"
#include "sim/core/inbox.hpp"
#include "sim/core/run_state.hpp"
#include "sim/core/step_charges.hpp"
#include "sim/core/wire.hpp"

XBT_LOG_NEW_DEFAULT_CATEGORY(edgetrain_fleet, "edgetrain fleet drivers (devices as activities)");

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

FleetDriver::FleetDriver(RunState& state, ActivityFleet& fleet, std::vector<FleetJob> jobs)
    : state_(state), fleet_(fleet) {
  devices_.reserve(jobs.size());
  for (FleetJob& job : jobs) {
    Device& d = devices_.emplace_back();
    d.index = job.device;
    d.host = state.device_hosts[job.device];
    d.model = std::move(job.model);
  }
}

void FleetDriver::make_steps() {
  const int64_t steps = state_.mode.steps_per_update();
  for (Device& d : devices_) {
    // A step trains on the device's batch (no injected samples on this path): its FLOPs are known now.
    const double flops = state_.step_charges->flops(d.index, state_.devices[d.index].batch_size);
    for (int64_t s = 0; s < steps; ++s) d.steps.push_back(sg4::Exec::init()->set_flops_amount(flops)->set_host(d.host));
  }
  steps_made_ = true;
}

void FleetDriver::wait_for(const sg4::ActivityPtr& activity, size_t device) {
  in_flight_.push_back(activity);
  owner_.push_back(device);
}

void FleetDriver::send_model(Device& d) {
  // The device waits for its model already: the transfer starts now (DownlinkCourier::begin_transfer).
  state_.links.begin(fleet_.server(), d.host, d.model->bytes);
  models_.sink->set_host(d.host);
  wait_for(models_.mailbox->put_async(static_cast<Message*>(d.model.get()), static_cast<uint64_t>(d.model->bytes)), &d - devices_.data());
}

void FleetDriver::model_received(Device& d) {
  state_.links.end(fleet_.server(), d.host);
  EnergyMeter::bring_up_to_date(fleet_.server());  // where the model's courier stopped waiting
  const ModelMessage& model = *d.model;
  account_model_received(state_, d.index, model, d.host);
  d.update = std::make_unique<UpdateMessage>();
  d.update->device = d.index;
  d.update->round = model.round;
  state_.backend.device(d.index).receive(model.model);
  d.step = 0;
  d.loss_sum = 0;
  start_step(d);
}

void FleetDriver::start_step(Device& d) {
  const int64_t batch_size = state_.devices[d.index].batch_size;
  // DeviceActor::next_batch for a static partition: a timing-only step needs only how many samples.
  state_.static_order(d.index).skip(batch_size);
  state_.live[d.index].held_samples += batch_size;
  state_.backend.device(d.index).start_step(std::vector<int64_t>(static_cast<size_t>(batch_size), 0));
  state_.ledgers[d.index].open(TimeLedger::Bucket::Compute);
  xbt_assert(steps_made_, "a device's step starts before its helper made it");
  const sg4::ExecPtr& exec = d.steps[d.step];
  exec->start();
  wait_for(exec, &d - devices_.data());
}

void FleetDriver::step_done(Device& d) {
  const int64_t batch_size = state_.devices[d.index].batch_size;
  state_.ledgers[d.index].charge(TimeLedger::Bucket::Compute, sg4::Engine::get_clock());
  d.loss_sum += state_.backend.device(d.index).finish_step();
  d.update->samples += batch_size;
  d.update->own_samples += batch_size;
  d.steps[d.step] = nullptr;  // its helper's list already let go of it
  if (++d.step < d.steps.size()) {
    start_step(d);
    return;
  }
  d.update->loss = d.loss_sum / static_cast<double>(d.steps.size());
  push(d);
}

void FleetDriver::push(Device& d) {
  UpdateMessage& message = *d.update;
  message.update = state_.backend.device(d.index).finish_update();
  size_update(state_, d.index, message);
  state_.ledgers[d.index].open(TimeLedger::Bucket::Comm);
  state_.live[d.index].pushing = true;
  Inbox& upstream = *state_.upstream[d.index];
  state_.links.begin(d.host, upstream.host(), message.bytes);
  message.from = d.host;
  // The update leaves from the device's host: the driver goes there to send it (it holds no Exec).
  sg4::this_actor::set_host(d.host);
  wait_for(upstream.lane(state_.lane(d.index))->put_async(static_cast<Message*>(&message), static_cast<uint64_t>(message.bytes)),
           &d - devices_.data());
}

void FleetDriver::pushed(Device& d) {
  Inbox& upstream = *state_.upstream[d.index];
  const size_t rank = arrival_rank(*d.update);
  (void)d.update.release();  // delivered: the aggregator takes it from the lane
  upstream.delivered(state_.lane(d.index), rank);
  state_.links.end(d.host, upstream.host());
  EnergyMeter::bring_up_to_date(d.host);  // where the device stopped waiting for its push
  TimeLedger& ledger = state_.ledgers[d.index];
  ledger.charge(TimeLedger::Bucket::Comm, sg4::Engine::get_clock());
  ledger.open_wait();  // until its next model
}

void FleetDriver::ended(size_t k) {
  Device& d = devices_[owner_[k]];
  in_flight_[k] = in_flight_.back();
  owner_[k] = owner_.back();
  in_flight_.pop_back();
  owner_.pop_back();
  if (d.update == nullptr) {
    model_received(d);
  } else if (d.step < d.steps.size()) {
    step_done(d);
  } else {
    pushed(d);
  }
}

void FleetDriver::stop() {
  stopping_ = true;
  for (const sg4::ActivityPtr& activity : in_flight_) activity->cancel();
}

void FleetDriver::operator()() {
  const SelfEnding told([this] { stop(); });
  models_ = fleet_.take_channel();
  for (Device& d : devices_) send_model(d);
  // The helper makes the steps' Execs in this instant, before any model can have arrived.
  // It holds the driver: it wakes after the driver ended.
  sg4::Actor::init(sg4::Actor::self()->get_name() + "/steps", fleet_.server())
      ->set_stacksize(ActivityFleet::kWaiterStackKiB)
      ->start(guarded(state_, [me = shared_from_this()] {
        me->make_steps();
        me->helper_.wait([&me] { return me->done_; });  // its Execs live in its list until they end
      }))
      ->daemonize();
  const size_t sent = devices_.size();
  while (!in_flight_.empty() && !stopping_) {
    size_t first = 0;
    try {
      first = static_cast<size_t>(sg4::Activity::wait_any(in_flight_));
    } catch (const simgrid::Exception&) {
      if (!stopping_) throw;
    }
    if (stopping_) break;  // what was in flight is cancelled: the run's results are being written
    // Every activity of this driver that ended in this instant is taken before the aggregator reads what
    // was delivered (ActivityFleet::settling). A test finishes an activity without taking it out of this
    // actor's list: the driver lets go of those when it ends.
    fleet_.settling(true);
    ended(first);
    for (ssize_t k; !in_flight_.empty() && (k = sg4::Activity::test_any(in_flight_)) >= 0;)
      ended(static_cast<size_t>(k));
    fleet_.settling(false);
  }
  if (!stopping_) {
    // The models' transfers wait in the mailbox, delivered: take them (the sink never does).
    for (size_t k = 0; k < sent; ++k) (void)models_.mailbox->get<ModelMessage>();
    fleet_.give_back(std::move(models_));
  }
  done_ = true;
  helper_.notify_all();
}

}  // namespace edgetrain::sim
