// See sync_aggregator.hpp.
#include "sim/sync_aggregator.hpp"

#include <cmath>
#include <memory>
#include <simgrid/s4u.hpp>

#include "sim/members.hpp"
#include "sim/messages.hpp"
#include "sim/observer.hpp"
#include "sim/wire.hpp"

XBT_LOG_NEW_DEFAULT_CATEGORY(edgetrain_sync_aggregator, "edgetrain round-based aggregator");

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

std::vector<bool> SyncAggregator::send_models(double started) {
  const size_t n = members_.size();
  std::vector<std::unique_ptr<ModelMessage>> models(n);
  for (size_t m = 0; m < n; ++m) {
    models[m] = std::make_unique<ModelMessage>();
    models[m]->round = state_.rounds_done;
    models[m]->posted_at_s = started;
    models[m]->from = inbox_.host();
  }
  injection_.plan_round(state_.rounds_done, members_, models);
  // Rounds are numbered as they close (empty ones too), so that each round draws its own selection.
  const std::vector<bool> chosen = selection_.pick(static_cast<int64_t>(state_.rounds.size()));
  std::vector<bool> waits_for(n, false);
  for (size_t m = 0; m < n; ++m) {
    const size_t device = members_[m];
    if (!chosen[m]) continue;
    state_.devices[device].rounds_selected += 1;
    DeviceLiveness& live = state_.live[device];
    if (!live.on || live.model_outstanding) continue;
    ModelMessage& message = *models[m];
    message.model = store_.payload_for(m);
    message.bytes = message_bytes(message.model.bytes + message.injected_bytes);
    live.model_outstanding = true;
    waits_for[m] = true;
    state_.couriers[device]->post(std::move(models[m]));
  }
  return waits_for;
}

void SyncAggregator::operator()() {
  const size_t n = members_.size();
  const std::vector<size_t> position = member_positions(members_, state_.devices.size());
  const double deadline = state_.scenario.stop.sim_time_s.value_or(-1);
  const auto& round_timeout = state_.scenario.training.round_timeout_s;
  const std::string me = "aggregator on " + inbox_.host()->get_name();

  while (!state_.should_stop(sg4::Engine::get_clock())) {
    const double started = sg4::Engine::get_clock();
    const std::vector<bool> waits_for = send_models(started);
    size_t expected = 0;
    for (bool w : waits_for) expected += w ? 1 : 0;

    report::RoundRow row;
    row.round = state_.rounds_done;
    row.start_s = started;
    const int64_t up_before = state_.bytes_up, down_before = state_.bytes_down;
    std::vector<bool> arrived(n, false);
    size_t present = 0;
    double weight_total = 0, samples_total = 0;
    bool finite = true, ended = false;
    const double closes = round_timeout ? started + *round_timeout : -1;
    const double until = closes < 0 ? deadline : (deadline < 0 ? closes : std::min(closes, deadline));
    // Wait for every expected update; a member whose update failed no longer owes one.
    auto owed = [&] {
      for (size_t m = 0; m < n; ++m)
        if (waits_for[m] && !arrived[m] && state_.live[members_[m]].model_outstanding) return true;
      return false;
    };
    // With nobody to wait for (devices off, or busy with an earlier round), the round still
    // lasts until it closes: late updates are received meanwhile, and time moves on.
    while (expected == 0 ? closes >= 0 : owed()) {
      std::unique_ptr<Message> next = inbox_.next(until);
      if (!next) {
        if (until >= 0 && sg4::Engine::get_clock() >= until) {
          ended = deadline >= 0 && sg4::Engine::get_clock() >= deadline;
          break;  // the round closes with what arrived (or the run ends)
        }
        continue;  // poked: a member failed; check again who still owes an update
      }
      const std::unique_ptr<UpdateMessage> update = expect<UpdateMessage>(std::move(next), me);
      state_.count_delivered(*update, inbox_.host());
      const size_t m = position.at(update->device);
      if (update->round != state_.rounds_done) {
        state_.late_pushes += 1;
        state_.devices[update->device].late_pushes += 1;
        row.late += 1;
        continue;
      }
      injection_.collect(*update);
      finite = finite && std::isfinite(update->loss);
      const double w = state_.mode.weight(update->samples);
      store_.accumulate(update->update, m, w);
      weight_total += w;
      samples_total += static_cast<double>(update->samples);
      arrived[m] = true;
      present += 1;
      row.slowest_device = state_.devices[update->device].device;
    }
    if (ended) {
      // The round in flight is abandoned: its updates are not applied.
      state_.stop("completed", "stop.sim_time_s reached");
      break;
    }
    injection_.close_round();
    const auto missing = static_cast<int64_t>(selection_.per_round() - present);  // selected, not aggregated
    state_.missing_updates += missing;
    row.updates = static_cast<int64_t>(present);
    row.missing = missing;
    auto close_row = [&] {
      row.end_s = sg4::Engine::get_clock();
      row.bytes_up = state_.bytes_up - up_before;
      row.bytes_down = state_.bytes_down - down_before;
      state_.rounds.push_back(row);
    };
    if (present == 0) {
      state_.empty_rounds += 1;  // nothing to apply: the model (and its version) stay as they are
      close_row();
      continue;
    }
    sg4::this_actor::execute(apply_flops(state_.backend.cost().params, static_cast<int64_t>(present)));
    finite = store_.apply_accumulated(state_.mode.round_lr(samples_total), weight_total) && finite;
    state_.rounds_done += 1;
    row.applied = true;
    close_row();
    if (finite) Observer::evaluate_if_near_target(state_, store_);
    XBT_DEBUG("round %ld applied", static_cast<long>(state_.rounds_done));
    if (!finite) {
      state_.stop("diverged", "loss or parameters became NaN/Inf in round " + std::to_string(state_.rounds_done));
    }
  }
}

}  // namespace edgetrain::sim
