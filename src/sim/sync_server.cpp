// See sync_server.hpp.
#include "sim/sync_server.hpp"

#include <cmath>
#include <memory>
#include <simgrid/s4u.hpp>

#include "sim/device_actor.hpp"
#include "sim/mailbox_ops.hpp"
#include "sim/messages.hpp"
#include "sim/wire.hpp"

XBT_LOG_NEW_DEFAULT_CATEGORY(edgetrain_server, "edgetrain aggregation server");

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

SyncServer::SyncServer(RunState& state)
    : state_(state),
      sgd_(state.scenario.training.momentum, state.scenario.training.weight_decay),
      injection_(state),
      decoder_(state.scenario.compression, state.layers) {
  if (const auto& down = state.scenario.compression.downlink) {
    for (size_t i = 0; i < state.devices.size(); ++i)
      downlinks_.emplace_back(*down, state.layers, state.downlink_seeds[i]);
  }
}

void SyncServer::operator()() {
  auto* inbox = sg4::Mailbox::by_name("server");
  const size_t n = state_.devices.size();
  const double deadline = state_.scenario.stop.sim_time_s.value_or(-1);
  const auto& round_timeout = state_.scenario.training.round_timeout_s;
  // One receive posted per device at all times: uploads proceed concurrently, and a push that
  // arrives after its round closed is still received (and discarded as late).
  std::vector<GradientMessage*> slots(n, nullptr);
  std::vector<sg4::CommPtr> receives;
  for (size_t i = 0; i < n; ++i) receives.push_back(inbox->get_async<GradientMessage>(&slots[i]));

  while (!state_.should_stop(sg4::Engine::get_clock())) {
    const double started = sg4::Engine::get_clock();
    // Devices only read this snapshot; the global model moves on without copying it again.
    auto snapshot = std::make_shared<const std::vector<float>>(state_.params);
    std::vector<std::unique_ptr<ModelMessage>> models(n);
    for (size_t i = 0; i < n; ++i) {
      models[i] = std::make_unique<ModelMessage>();
      models[i]->round = state_.rounds_done;
      models[i]->params = snapshot;
      models[i]->posted_at_s = started;
    }
    injection_.plan_round(state_.rounds_done, models);
    // This round waits for the devices that are on and not still busy with an earlier round.
    size_t expected = 0;
    std::vector<bool> waits_for(n, false);
    for (size_t i = 0; i < n; ++i) {
      DeviceLiveness& live = state_.live[i];
      if (!live.on || live.model_outstanding) continue;
      ModelMessage& m = *models[i];
      if (!downlinks_.empty()) m.delta = downlinks_[i].next(state_.params, state_.rounds_done);
      const int64_t payload =
          m.delta ? static_cast<int64_t>(m.delta->size()) : dense_fp32_bytes(state_.model.num_params());
      m.bytes = message_bytes(payload + m.injected_bytes);
      live.model_outstanding = true;
      waits_for[i] = true;
      expected += 1;
      const auto bytes = static_cast<uint64_t>(m.bytes);
      send_detached(DeviceActor::mailbox_name(state_.devices[i].device), std::move(models[i]), bytes);
    }

    std::vector<std::unique_ptr<GradientMessage>> by_device(n);
    bool ended = false;
    const double closes = round_timeout ? started + *round_timeout : -1;
    const double until = closes < 0 ? deadline : (deadline < 0 ? closes : std::min(closes, deadline));
    // Wait for every expected push; a device whose update failed no longer owes one.
    auto owed = [&] {
      for (size_t i = 0; i < n; ++i)
        if (waits_for[i] && !by_device[i] && state_.live[i].model_outstanding) return true;
      return false;
    };
    // With nobody to wait for (devices off, or busy with an earlier round), the round still
    // lasts until it closes: late pushes are received meanwhile, and time moves on.
    while (expected == 0 ? closes >= 0 : owed()) {
      const double timeout = until < 0 ? -1 : std::max(0.0, until - sg4::Engine::get_clock());
      const ssize_t done = wait_receive(inbox, receives, slots, timeout);
      if (done == kReceiveFailed) continue;  // then checks again who still owes an update
      if (done < 0) {
        ended = deadline >= 0 && sg4::Engine::get_clock() >= deadline;
        break;  // the round closes with what arrived (or the run ends)
      }
      std::unique_ptr<GradientMessage> message = take_received(inbox, receives, slots, static_cast<size_t>(done));
      state_.count_delivered(*message);
      const size_t device = message->device;
      if (message->round != state_.rounds_done) {
        state_.late_pushes += 1;
        state_.devices[device].late_pushes += 1;
        continue;
      }
      by_device[device] = std::move(message);
    }
    if (ended) {
      // The round in flight is abandoned: its updates are not applied.
      state_.stop("completed", "stop.sim_time_s reached");
      break;
    }

    injection_.collect(by_device);
    // Aggregate in device order, so the floating-point sum never depends on arrival order.
    std::vector<size_t> present;
    std::vector<int64_t> samples;
    for (size_t i = 0; i < n; ++i) {
      if (!by_device[i]) continue;
      present.push_back(i);
      samples.push_back(by_device[i]->samples);
    }
    state_.missing_updates += static_cast<int64_t>(n - present.size());
    if (present.empty()) {
      state_.empty_rounds += 1;  // nothing to apply: the model (and its version) stay as they are
      continue;
    }
    const Aggregation agg = aggregation_for(state_.scenario.training, state_.base_global_batch, samples);
    std::vector<float> average(state_.params.size(), 0.0f);
    bool finite = true;
    for (size_t p = 0; p < present.size(); ++p) {
      const GradientMessage& m = *by_device[present[p]];
      finite = finite && std::isfinite(m.loss);
      const auto w = static_cast<float>(agg.weights[p]);
      const std::vector<float> g = decoder_.decode(m.update, state_.uplink_seeds[m.device], m.step);
      for (size_t k = 0; k < average.size(); ++k) average[k] += w * g[k];
    }
    sg4::this_actor::execute(apply_flops(state_.model.num_params(), static_cast<int64_t>(present.size())));
    sgd_.step(state_.params, average, agg.lr);
    for (float v : state_.params) finite = finite && std::isfinite(v);
    state_.rounds_done += 1;
    XBT_DEBUG("round %ld applied", static_cast<long>(state_.rounds_done));
    if (!finite) {
      state_.stop("diverged", "loss or parameters became NaN/Inf in round " + std::to_string(state_.rounds_done));
    }
  }
  for (auto& r : receives) r->cancel();  // abandoned receives: cancel rather than leave them dangling
}

}  // namespace edgetrain::sim
