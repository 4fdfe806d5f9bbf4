// See sync_aggregator.hpp.
#include "sim/sync_aggregator.hpp"

#include <cmath>
#include <limits>
#include <memory>
#include <simgrid/s4u.hpp>

#include "sim/members.hpp"
#include "sim/messages.hpp"
#include "sim/observer.hpp"
#include "sim/wire.hpp"

XBT_LOG_NEW_DEFAULT_CATEGORY(edgetrain_sync_aggregator, "edgetrain round-based aggregator");

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

std::vector<bool> SyncAggregator::available(double now) const {
  std::vector<bool> out(members_.size(), false);
  for (size_t m = 0; m < members_.size(); ++m) {
    const size_t device = members_[m];
    const DeviceLiveness& live = state_.live[device];
    if (!live.on || live.model_outstanding) continue;
    // A stream is looked at only while its device is on (what arrives while off may be lost).
    DeviceStream* stream = state_.streams[device].get();
    out[m] = !stream || stream->batch_ready_at(state_.devices[device].batch_size, now) <= now;
  }
  return out;
}

void SyncAggregator::wait_for_data(double until) {
  const double now = sg4::Engine::get_clock();
  double first = std::numeric_limits<double>::infinity();
  for (size_t device : members_) {
    DeviceStream* stream = state_.streams[device].get();
    if (stream && state_.live[device].on)
      first = std::min(first, stream->batch_ready_at(state_.devices[device].batch_size, now));
  }
  if (until >= 0) first = std::min(first, until);
  if (!std::isfinite(first)) {
    state_.stop("completed", "training.selection: no device will hold a full batch any more");
    return;
  }
  sg4::this_actor::sleep_until(first);
}

std::vector<bool> SyncAggregator::send_models(double started, size_t& selected) {
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
  const std::vector<bool> chosen =
      selection_.pick(static_cast<int64_t>(state_.rounds.size()),
                      selection_.uses_availability() ? available(started) : std::vector<bool>());
  std::vector<bool> waits_for(n, false);
  selected = 0;
  for (size_t m = 0; m < n; ++m) {
    const size_t device = members_[m];
    if (!chosen[m]) continue;
    selected += 1;
    state_.devices[device].rounds_selected += 1;
    DeviceLiveness& live = state_.live[device];
    if (!live.on || live.model_outstanding) {
      state_.selections_missing += 1;  // never sent: off, or busy with an earlier round
      continue;
    }
    ModelMessage& message = *models[m];
    message.model = store_.payload_for(m);
    message.bytes = message_bytes(message.model.bytes + message.injected_bytes);
    live.model_outstanding = true;
    waits_for[m] = true;
    sent_at_[m] = started;
    state_.couriers[device]->post(std::move(models[m]));
  }
  state_.rounds_started += 1;
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
    size_t selected = 0;
    const std::vector<bool> waits_for = send_models(started, selected);
    size_t expected = 0;
    for (bool w : waits_for) expected += w ? 1 : 0;
    const size_t target = selection_.aggregates(selected);  // K: the round closes once K arrived

    report::RoundRow row;
    row.round = state_.rounds_done;
    row.start_s = started;
    row.selected = static_cast<int64_t>(selected);
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
    auto any_outstanding = [&] {
      for (size_t device : members_)
        if (state_.live[device].model_outstanding) return true;
      return false;
    };
    // With nobody to wait for (devices off, or busy with an earlier round), the round still
    // lasts until it closes, or without a timeout until a straggler of an earlier round delivers
    // or fails: late updates are received meanwhile, and time moves on.
    bool heard = false;
    if (expected == 0 && closes < 0 && selection_.uses_availability() && !any_outstanding()) wait_for_data(until);
    auto waiting = [&] {
      if (expected > 0) return present < target && owed();
      return closes >= 0 || (!heard && any_outstanding());
    };
    while (waiting()) {
      std::unique_ptr<Message> next = inbox_.next(until);
      heard = true;
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
      const double round_time_s = sg4::Engine::get_clock() - sent_at_[m];
      // A member has one model out at a time: an update from one this round did not send to is a
      // straggler's from an earlier round (one that closed without it: timeout, or its K arrived).
      if (!waits_for[m] || update->round != state_.rounds_done) {
        state_.late_pushes += 1;
        state_.devices[update->device].late_pushes += 1;
        row.late += 1;
        selection_.delivered(m, round_time_s);
        continue;
      }
      injection_.collect(*update);
      finite = finite && std::isfinite(update->loss);
      const double w = state_.mode.weight(update->samples);
      store_.accumulate(update->update, m, w);
      weight_total += w;
      samples_total += static_cast<double>(update->samples);
      selection_.aggregated(m, update->samples, update->loss, round_time_s);
      arrived[m] = true;
      present += 1;
      row.slowest_device = state_.devices[update->device].device;
    }
    if (ended) {
      // The round in flight is abandoned: its updates are not applied (missing, as those still out).
      state_.selections_missing += static_cast<int64_t>(present);
      state_.stop("completed", "stop.sim_time_s reached");
      break;
    }
    injection_.close_round();
    selection_.round_closed();
    const auto missing = static_cast<int64_t>(selected - present);  // selected, not aggregated
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
    for (size_t m = 0; m < n; ++m)
      if (arrived[m]) state_.devices[members_[m]].rounds_aggregated += 1;
    row.applied = true;
    close_row();
    if (finite) Observer::evaluate_if_near_target(state_, store_);
    XBT_DEBUG("round %ld applied", static_cast<long>(state_.rounds_done));
    if (!finite) {
      state_.stop("diverged", "loss or parameters became NaN/Inf in round " + std::to_string(state_.rounds_done));
    }
  }
  // Models still out when the run ends: selected, never delivered.
  for (size_t device : members_)
    if (state_.live[device].model_outstanding) state_.selections_missing += 1;
}

}  // namespace edgetrain::sim
