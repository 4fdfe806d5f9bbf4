// See async_server.hpp.
#include "sim/async_server.hpp"

#include <cmath>
#include <memory>
#include <simgrid/s4u.hpp>

#include "sim/aggregation.hpp"
#include "sim/device_actor.hpp"
#include "sim/mailbox_ops.hpp"
#include "sim/messages.hpp"
#include "sim/wire.hpp"

XBT_LOG_NEW_DEFAULT_CATEGORY(edgetrain_async_server, "edgetrain asynchronous parameter server");

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

AsyncServer::AsyncServer(RunState& state)
    : state_(state),
      sgd_(state.scenario.training.momentum, state.scenario.training.weight_decay),
      decoder_(state.scenario.compression, state.layers),
      rule_(state.scenario.training.staleness_lr, static_cast<size_t>(state.model.num_params()),
            static_cast<size_t>(state.scenario.training.staleness_history)),
      lr_(server_lr(state.scenario.training)) {}

void AsyncServer::apply(const GradientMessage& push) {
  const int64_t staleness = state_.rounds_done - push.round;
  const std::string& device = state_.devices[push.device].device;
  const auto& bound = state_.scenario.training.max_staleness;
  if (bound && staleness > *bound) {
    state_.stale_drops += 1;
    state_.devices[push.device].stale_drops += 1;
    return;
  }
  std::vector<float> g = decoder_.decode(push.update, state_.uplink_seeds[push.device], push.step);
  // The touched coordinates: the sparse index sets, or every coordinate for a dense push.
  std::vector<int64_t> touched;
  for (const auto& layer : push.update.indices) touched.insert(touched.end(), layer.begin(), layer.end());
  rule_.scale(staleness, touched, g);
  sg4::this_actor::execute(5.0 * static_cast<double>(state_.model.num_params()));  // scale + SGD update
  sgd_.step(state_.params, g, lr_);
  rule_.applied(std::move(touched));
  state_.rounds_done += 1;
  state_.staleness.push_back({sg4::Engine::get_clock(), device, staleness});
  bool finite = std::isfinite(push.loss);
  for (float v : state_.params) finite = finite && std::isfinite(v);
  if (!finite)
    state_.stop("diverged", "loss or parameters became NaN/Inf at update " + std::to_string(state_.rounds_done));
}

void AsyncServer::operator()() {
  auto* inbox = sg4::Mailbox::by_name("server");
  const size_t n = state_.devices.size();
  const double deadline = state_.scenario.stop.sim_time_s.value_or(-1);
  // One receive posted per device at all times: uploads then proceed concurrently.
  std::vector<AsyncInbound*> slots(n, nullptr);
  std::vector<sg4::CommPtr> receives;
  for (size_t i = 0; i < n; ++i) receives.push_back(inbox->get_async<AsyncInbound>(&slots[i]));
  while (!state_.should_stop(sg4::Engine::get_clock())) {
    const double timeout = deadline < 0 ? -1 : std::max(0.0, deadline - sg4::Engine::get_clock());
    const ssize_t done = wait_receive(inbox, receives, slots, timeout);
    if (done == kReceiveFailed) continue;
    if (done < 0) {
      state_.stop("completed", "stop.sim_time_s reached");
      break;
    }
    const std::unique_ptr<AsyncInbound> message = take_received(inbox, receives, slots, static_cast<size_t>(done));
    const size_t device = message->device;
    if (!message->push) {
      // A pull: reply with the dense current model and its version (the device owns the reply).
      state_.count_upload(device, kHeaderBytes, kHeaderBytes);
      auto reply = std::make_unique<ModelMessage>();
      reply->round = state_.rounds_done;
      reply->params = std::make_shared<const std::vector<float>>(state_.params);
      reply->posted_at_s = sg4::Engine::get_clock();
      reply->bytes = message_bytes(dense_fp32_bytes(state_.model.num_params()));
      const auto bytes = static_cast<uint64_t>(reply->bytes);
      send_detached(DeviceActor::mailbox_name(state_.devices[device].device), std::move(reply), bytes);
      continue;
    }
    state_.count_delivered(*message->push);
    apply(*message->push);
  }
  // Receives still posted at the end are abandoned: cancel them rather than leave them dangling.
  for (auto& r : receives) r->cancel();
}

}  // namespace edgetrain::sim
