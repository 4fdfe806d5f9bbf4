// See sync_server.hpp.
#include "sim/sync_server.hpp"

#include <cmath>
#include <memory>
#include <simgrid/s4u.hpp>

#include "sim/device_actor.hpp"
#include "sim/messages.hpp"
#include "sim/stop_signal.hpp"
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
  // Installed here, once the simulation runs: SimGrid installs its own SIGINT handler (which
  // aborts) when the engine starts running, and ours must replace it.
  install_interrupt_handler();
  auto* inbox = sg4::Mailbox::by_name("server");
  const size_t n = state_.devices.size();
  std::vector<sg4::Mailbox*> outboxes;
  for (const auto& d : state_.devices) outboxes.push_back(sg4::Mailbox::by_name(DeviceActor::mailbox_name(d.device)));
  const double deadline = state_.scenario.stop.sim_time_s.value_or(-1);

  while (!state_.should_stop(sg4::Engine::get_clock())) {
    // Devices only read this snapshot; the global model moves on without copying it again.
    auto snapshot = std::make_shared<const std::vector<float>>(state_.params);
    std::vector<std::unique_ptr<ModelMessage>> models(n);
    for (size_t i = 0; i < n; ++i) {
      models[i] = std::make_unique<ModelMessage>();
      models[i]->round = state_.rounds_done;
      models[i]->params = snapshot;
      models[i]->posted_at_s = sg4::Engine::get_clock();
    }
    injection_.plan_round(state_.rounds_done, models);
    for (size_t i = 0; i < n; ++i) {
      ModelMessage& m = *models[i];
      if (!downlinks_.empty()) m.delta = downlinks_[i].next(state_.params, state_.rounds_done);
      const int64_t payload =
          m.delta ? static_cast<int64_t>(m.delta->size()) : dense_fp32_bytes(state_.model.num_params());
      m.bytes = message_bytes(payload + m.injected_bytes);
    }
    std::vector<sg4::CommPtr> sends;
    for (size_t i = 0; i < n; ++i) {
      const auto bytes = static_cast<uint64_t>(models[i]->bytes);
      sends.push_back(outboxes[i]->put_async(models[i].release(), bytes));  // the device takes ownership
    }
    std::vector<GradientMessage*> slots(n, nullptr);
    std::vector<sg4::CommPtr> receives;
    for (size_t i = 0; i < n; ++i) receives.push_back(inbox->get_async<GradientMessage>(&slots[i]));

    std::vector<std::unique_ptr<GradientMessage>> by_device(n);
    std::vector<size_t> pending(n);
    for (size_t i = 0; i < n; ++i) pending[i] = i;
    bool timed_out = false;
    while (!receives.empty()) {
      const double timeout = deadline < 0 ? -1 : std::max(0.0, deadline - sg4::Engine::get_clock());
      const ssize_t done = sg4::Comm::wait_any_for(receives, timeout);
      if (done < 0) {
        timed_out = true;
        break;
      }
      std::unique_ptr<GradientMessage> message(slots[pending[done]]);
      const size_t device = message->device;
      by_device[device] = std::move(message);
      receives.erase(receives.begin() + done);
      pending.erase(pending.begin() + done);
    }
    if (timed_out) {
      // The round in flight is abandoned: its gradients are neither applied nor counted.
      for (auto& r : receives) r->cancel();
      state_.stop("completed", "stop.sim_time_s reached");
      break;
    }
    sg4::Comm::wait_all(sends);

    injection_.collect(by_device);
    // Aggregate in device order, so the floating-point sum never depends on arrival order.
    std::vector<int64_t> samples;
    for (const auto& m : by_device) samples.push_back(m->samples);
    const Aggregation agg = aggregation_for(state_.scenario.training, state_.base_global_batch, samples);
    std::vector<float> average(state_.params.size(), 0.0f);
    bool finite = true;
    for (size_t i = 0; i < n; ++i) {
      finite = finite && std::isfinite(by_device[i]->loss);
      const auto w = static_cast<float>(agg.weights[i]);
      const GradientMessage& m = *by_device[i];
      const std::vector<float> g = decoder_.decode(m.update, state_.uplink_seeds[i], m.step);
      for (size_t k = 0; k < average.size(); ++k) average[k] += w * g[k];
    }
    sg4::this_actor::execute(apply_flops(state_.model.num_params(), static_cast<int64_t>(n)));
    sgd_.step(state_.params, average, agg.lr);
    for (float v : state_.params) finite = finite && std::isfinite(v);
    state_.rounds_done += 1;
    XBT_DEBUG("round %ld applied", static_cast<long>(state_.rounds_done));
    if (!finite) {
      state_.stop("diverged", "loss or parameters became NaN/Inf in round " + std::to_string(state_.rounds_done));
    }
  }
}

}  // namespace edgetrain::sim
