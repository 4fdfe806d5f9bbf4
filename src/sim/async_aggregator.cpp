// See async_aggregator.hpp.
#include "sim/async_aggregator.hpp"

#include <cmath>
#include <memory>
#include <simgrid/s4u.hpp>

#include "sim/members.hpp"
#include "sim/messages.hpp"
#include "sim/wire.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

void AsyncAggregator::reply(const PullRequest& pull) {
  state_.count_upload(pull.device, inbox_.host(), pull.bytes, pull.bytes);
  auto reply = std::make_unique<ModelMessage>();
  reply->round = state_.rounds_done;
  reply->model = store_.dense_payload();
  reply->posted_at_s = sg4::Engine::get_clock();
  reply->from = inbox_.host();
  reply->bytes = message_bytes(reply->model.bytes);
  state_.couriers[pull.device]->post(std::move(reply));
}

void AsyncAggregator::apply(const UpdateMessage& push) {
  const int64_t staleness = state_.rounds_done - push.round;
  const auto& bound = state_.scenario.training.max_staleness;
  if (bound && staleness > *bound) {
    state_.stale_drops += 1;
    state_.devices[push.device].stale_drops += 1;
    return;
  }
  sg4::this_actor::execute(5.0 * static_cast<double>(state_.backend.cost().params));  // scale + SGD update
  const bool finite = store_.apply_one(push.update, position_.at(push.device), staleness, state_.mode.server_lr()) &&
                      std::isfinite(push.loss);
  state_.rounds_done += 1;
  state_.staleness.push_back({sg4::Engine::get_clock(), state_.devices[push.device].device, staleness});
  if (!finite)
    state_.stop("diverged", "loss or parameters became NaN/Inf at update " + std::to_string(state_.rounds_done));
}

void AsyncAggregator::operator()() {
  position_ = member_positions(members_, state_.devices.size());
  const double deadline = state_.scenario.stop.sim_time_s.value_or(-1);
  const std::string me = "aggregator on " + inbox_.host()->get_name();
  while (!state_.should_stop(sg4::Engine::get_clock())) {
    std::unique_ptr<Message> next = inbox_.next(deadline);
    if (!next) {
      if (deadline >= 0 && sg4::Engine::get_clock() >= deadline) {
        state_.stop("completed", "stop.sim_time_s reached");
        break;
      }
      continue;  // poked: a member failed
    }
    if (auto* pull = dynamic_cast<PullRequest*>(next.get())) {
      reply(*pull);
      continue;
    }
    const std::unique_ptr<UpdateMessage> push = expect<UpdateMessage>(std::move(next), me);
    state_.count_delivered(*push, inbox_.host());
    apply(*push);
  }
}

}  // namespace edgetrain::sim
