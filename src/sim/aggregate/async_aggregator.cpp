// See async_aggregator.hpp.
#include "sim/aggregate/async_aggregator.hpp"

#include <cmath>
#include <memory>
#include <simgrid/s4u.hpp>

#include "sim/aggregate/members.hpp"
#include "sim/core/messages.hpp"
#include "sim/core/wire.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

AsyncAggregator::AsyncAggregator(RunState& state, Inbox& inbox, std::vector<size_t> members, backend::ModelStore& store)
    : state_(state),
      inbox_(inbox),
      members_(std::move(members)),
      source_(backend::role<backend::ModelSource>(store)),
      buffering_(backend::role<backend::BufferedAggregation>(store)),
      position_(member_positions(members_, state.devices.size())),
      buffer_size_(state.scenario.training.buffer_size) {
  const auto& t = state.scenario.training;
  if (t.staleness_policy == "hold") {
    barrier_.emplace(members_.size(), *t.max_staleness);  // the schema requires the bound with hold
    restarts_.assign(members_.size(), 0);
  }
}

void AsyncAggregator::reply(size_t device) {
  auto reply = std::make_unique<ModelMessage>();
  reply->round = state_.rounds_done;
  reply->model = source_.dense_payload();
  reply->posted_at_s = sg4::Engine::get_clock();
  reply->from = inbox_.host();
  reply->bytes = message_bytes(reply->model.bytes);
  state_.post_model(device, std::move(reply));
}

void AsyncAggregator::pulled(const PullRequest& pull) {
  state_.count_upload(pull.device, inbox_.host(), pull.bytes, pull.bytes);
  if (!barrier_) {
    reply(pull.device);
    return;
  }
  const size_t m = position_.at(pull.device);
  const double now = sg4::Engine::get_clock();
  // A device that restarted since its last pull left the barrier, even if no poke said so yet.
  if (state_.devices[pull.device].restarts != restarts_[m]) {
    restarts_[m] = state_.devices[pull.device].restarts;
    barrier_->leave(m, now);
  }
  if (barrier_->pull(m, now)) reply(pull.device);
}

void AsyncAggregator::leave_if_off() {
  const double now = sg4::Engine::get_clock();
  for (size_t m = 0; m < members_.size(); ++m) {
    if (barrier_->taking_part(m) && !state_.live[members_[m]].on) barrier_->leave(m, now);
  }
}

void AsyncAggregator::release() {
  for (size_t m : barrier_->released(sg4::Engine::get_clock())) reply(members_[m]);
}

void AsyncAggregator::take(const UpdateMessage& push) {
  const int64_t staleness = state_.rounds_done - push.round;
  const auto& bound = state_.scenario.training.max_staleness;
  if (barrier_) barrier_->pushed(position_.at(push.device));
  if (!barrier_ && bound && staleness > *bound) {
    state_.async.stale_drops += 1;
    state_.devices[push.device].stale_drops += 1;
    return;
  }
  // A push costs one pass over the parameters (scaled into the buffer); the version it
  // completes four more (the average and the SGD update): 5 x params per push when each push is
  // a version. Charged at once, before the buffer changes.
  const bool completes = buffered_ + 1 == buffer_size_;
  const auto params = static_cast<double>(state_.backend.cost().params);
  sg4::this_actor::execute((completes ? 5.0 : 1.0) * params +
                           (completes ? cost_.extra_flops(state_.backend.cost().params, buffer_size_) : 0.0));
  buffering_.buffer(push.update, position_.at(push.device), staleness);
  buffered_ += 1;
  buffer_finite_ = buffer_finite_ && std::isfinite(push.loss);
  state_.async.staleness.push_back({sg4::Engine::get_clock(), state_.devices[push.device].device, staleness});
  if (!completes) return;
  const bool finite = buffering_.apply_buffer(state_.mode.server_lr(), buffer_size_) && buffer_finite_;
  buffered_ = 0;
  buffer_finite_ = true;
  state_.rounds_done += 1;
  state_.round_ends_s.push_back(sg4::Engine::get_clock());
  if (!finite)
    state_.stop("diverged", "loss or parameters became NaN/Inf at update " + std::to_string(state_.rounds_done));
}

void AsyncAggregator::operator()() {
  const double deadline = state_.scenario.stop.sim_time_s.value_or(-1);
  const std::string me = "aggregator on " + inbox_.host()->get_name();
  while (!state_.should_stop(sg4::Engine::get_clock())) {
    std::unique_ptr<Message> next = inbox_.next(deadline);
    if (!next) {
      if (deadline >= 0 && sg4::Engine::get_clock() >= deadline) {
        state_.stop("completed", "stop.sim_time_s reached");
        break;
      }
      if (barrier_) {  // poked: a member failed, perhaps switched off
        leave_if_off();
        release();
      }
      continue;
    }
    if (auto* pull = dynamic_cast<PullRequest*>(next.get())) {
      pulled(*pull);
      continue;
    }
    const std::unique_ptr<UpdateMessage> push = expect<UpdateMessage>(std::move(next), me);
    state_.count_delivered(*push, inbox_.host());
    take(*push);
    if (barrier_) release();
  }
  // A partly filled buffer is not applied (FedBuff): its pushes are counted as such.
  state_.async.buffered_at_end += buffered_;
  if (barrier_) {
    barrier_->finish(sg4::Engine::get_clock());
    state_.async.holds += barrier_->holds();
    state_.async.held_s += barrier_->held_s();
  }
}

}  // namespace edgetrain::sim
