// See sync_rounds.hpp.
#include "sim/aggregate/sync_rounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <simgrid/s4u.hpp>

#include "scenario/population.hpp"
#include "sim/aggregate/members.hpp"
#include "sim/core/activity_fleet.hpp"
#include "sim/core/messages.hpp"
#include "sim/core/wire.hpp"

XBT_LOG_NEW_DEFAULT_CATEGORY(edgetrain_sync_aggregator, "edgetrain round-based aggregators (flat server, sites)");

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {
namespace {

// A Python strategy's configure_fit, or a Python selection (the scenario does not allow both).
std::shared_ptr<SelectionPolicy> given_selection(const policy::Policies& policies) {
  if (policies.strategy)
    if (auto configure = policies.strategy->round_configuration()) return make_picked(std::move(configure));
  return policies.selection ? make_picked(policies.selection) : nullptr;
}

}  // namespace

SyncRounds::SyncRounds(RunState& state, Inbox& inbox, std::vector<size_t> members, backend::ModelStore& store,
                       uint64_t selection_seed)
    : state_(state),
      inbox_(inbox),
      members_(std::move(members)),
      position_(member_positions(members_, state.devices.size())),
      source_(backend::role<backend::ModelSource>(store)),
      sum_(backend::role<backend::RoundAggregation>(store)),
      mode_(state.scenario.training, members_.size()),
      injection_(state),
      selection_(state.scenario.training.selection, selection_seed, members_.size(),
                 scenario::poisson_draw(state.scenario), given_selection(state.policies)),
      sent_at_(members_.size(), 0.0),
      last_round_end_(members_.size(), 0.0),
      unsent_(members_.size()),
      picked_(members_.size(), false),
      cost_(state.scenario),
      extra_model_bytes_(state.policies.strategy ? state.policies.strategy->extra_model_bytes() : 0),
      deadline_(state.scenario.training.deadline, state.scenario.training.round_timeout_s, members_.size(),
                state.policies.deadline) {}

std::vector<bool> SyncRounds::available(double now) const {
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

void SyncRounds::wait_for_data(double until) {
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

std::vector<bool> SyncRounds::send_models(int64_t round, int64_t draw, double started, size_t& selected) {
  const size_t n = members_.size();
  auto fresh = [&] {
    auto model = std::make_unique<ModelMessage>();
    model->round = round;
    model->posted_at_s = started;
    model->from = inbox_.host();
    return model;
  };
  // Data injection may hand samples to any member; otherwise only the members sent a model get one (a
  // population's round is a thousand of a million).
  std::vector<std::unique_ptr<ModelMessage>> models(n);
  if (state_.scenario.training.injection) {
    for (auto& model : models) model = fresh();
    injection_.plan_round(round, members_, models);
  }
  const std::vector<bool> chosen =
      selection_.pick(draw, selection_.uses_availability() ? available(started) : std::vector<bool>());
  std::vector<bool> waits_for(n, false);
  selected = 0;
  for (size_t m = 0; m < n; ++m) {
    const size_t device = members_[m];
    DeviceLiveness& live = state_.live[device];
    picked_[m] = chosen[m];
    unsent_[m].reset();
    if (!chosen[m]) {
      if (live.left_out_since_s < 0) live.left_out_since_s = last_round_end_[m];
      continue;
    }
    selected += 1;
    state_.devices[device].rounds_selected += 1;
    if (!live.on || live.model_outstanding) {
      unsent_[m] = live.on ? report::PickOutcome::busy : report::PickOutcome::off;
      state_.updates.selections_missing += 1;  // never sent: off, or busy with an earlier round
      if (live.left_out_since_s < 0) live.left_out_since_s = last_round_end_[m];
      continue;
    }
    waits_for[m] = true;
  }
  // Secure aggregation: the devices sent a model are the protocol's participants.
  secure_.reset();
  if (state_.scenario.privacy.secure_aggregation) {
    std::vector<size_t> participants;
    for (size_t m = 0; m < n; ++m)
      if (waits_for[m]) participants.push_back(members_[m]);
    secure_.emplace(state_, inbox_, draw, participants, started);
    if (!secure_->failure().empty()) {  // no model goes out
      for (size_t m = 0; m < n; ++m)
        if (waits_for[m]) unsent_[m] = report::PickOutcome::discarded;
      std::fill(waits_for.begin(), waits_for.end(), false);
    }
  }
  for (size_t m = 0; m < n; ++m) {
    if (!waits_for[m]) continue;
    const size_t device = members_[m];
    DeviceLiveness& live = state_.live[device];
    // Posting a model lets other actors run: a device may have gone off since it was counted in.
    if (!live.on) {
      waits_for[m] = false;
      unsent_[m] = report::PickOutcome::off;
      state_.updates.selections_missing += 1;
      if (live.left_out_since_s < 0) live.left_out_since_s = last_round_end_[m];
      continue;
    }
    if (!models[m]) models[m] = fresh();
    ModelMessage& message = *models[m];
    message.model = source_.payload_for(m);
    message.bytes = message_bytes(message.model.bytes + message.injected_bytes + extra_model_bytes_);
    if (secure_) {
      message.secure = secure_->protocol();
      message.secure_draw = draw;
    }
    live.model_outstanding = true;
    sent_at_[m] = started;
    if (state_.slots) {
      state_.slots->place(state_, device, std::move(models[m]));  // a population's device takes a host slot
    } else if (state_.fleet) {
      state_.fleet->post(device, std::move(models[m]));
    } else {
      state_.post_model(device, std::move(models[m]));
    }
  }
  if (state_.fleet) state_.fleet->dispatch();  // the round's devices, as activities
  state_.updates.rounds_started += 1;
  return waits_for;
}

bool SyncRounds::wait_for_a_member() {
  const double deadline = state_.scenario.stop.sim_time_s.value_or(-1);
  auto none_on = [&] {
    return std::none_of(members_.begin(), members_.end(), [&](size_t d) { return state_.live[d].on; });
  };
  auto none_out = [&] {
    return std::none_of(members_.begin(), members_.end(), [&](size_t d) { return state_.live[d].model_outstanding; });
  };
  while (none_on() && none_out()) {
    if (std::all_of(members_.begin(), members_.end(), [&](size_t d) { return state_.live[d].gone; })) {
      state_.stop("completed", "every device of the aggregator on " + inbox_.host()->get_name() +
                                   " is off for the rest of the run (faults.devices, traces.availability)");
      return false;
    }
    std::unique_ptr<Message> next = inbox_.next(deadline);
    if (next) {
      // Nothing is out, so only a key-phase answer of a device an earlier secure round aborted can come.
      const auto stale = expect<SecureMessage>(std::move(next), "aggregator on " + inbox_.host()->get_name());
      state_.count_upload(stale->device, inbox_.host(), stale->bytes, stale->bytes);
      continue;
    }
    if (deadline >= 0 && sg4::Engine::get_clock() >= deadline) return false;
    if (state_.should_stop(sg4::Engine::get_clock())) return false;  // interrupted
  }
  return true;
}

void SyncRounds::log_picks(const report::RoundRow& row, const std::vector<bool>& waits_for,
                           const std::vector<bool>& arrived, const std::vector<double>& arrived_at, bool applied,
                           bool ended, bool had_k) {
  using report::PickOutcome;
  const std::string& aggregator = inbox_.host()->get_name();
  for (size_t m = 0; m < members_.size(); ++m) {
    if (!picked_[m] && !arrived[m]) continue;
    const size_t device = members_[m];
    PickOutcome outcome = PickOutcome::failed;
    if (arrived[m]) {
      outcome = !applied ? PickOutcome::discarded : waits_for[m] ? PickOutcome::aggregated : PickOutcome::straggler;
    } else if (unsent_[m]) {
      outcome = *unsent_[m];
    } else if (ended) {
      outcome = PickOutcome::abandoned;
    } else if (state_.live[device].model_outstanding) {
      outcome = had_k ? PickOutcome::cut : PickOutcome::timed_out;
    }
    state_.selection_log.record(row.round, row.start_s, aggregator, state_.devices[device].device, outcome,
                                arrived[m] ? std::optional<double>(arrived_at[m]) : std::nullopt);
  }
}

RoundResult SyncRounds::run(int64_t round, int64_t draw) {
  const size_t n = members_.size();
  const double deadline = state_.scenario.stop.sim_time_s.value_or(-1);
  const std::string me = "aggregator on " + inbox_.host()->get_name();

  RoundResult result;
  if (!wait_for_a_member()) {
    result.ended = true;
    return result;
  }
  report::RoundRow& row = result.row;
  const double started = sg4::Engine::get_clock();
  size_t selected = 0;
  const std::vector<bool> waits_for = send_models(round, draw, started, selected);
  size_t expected = 0;
  for (bool w : waits_for) expected += w ? 1 : 0;
  const size_t target = selection_.aggregates(selected);  // K: the round closes once K arrived
  row.round = round;
  row.start_s = started;
  row.selected = static_cast<int64_t>(selected);
  const int64_t up_before = state_.bytes_up, down_before = state_.bytes_down;
  std::vector<bool> arrived(n, false);
  std::vector<double> arrived_at(n, 0.0);
  size_t present = 0, stragglers = 0;  // stragglers: aggregated, selected by an earlier (empty) round
  double weight_total = 0;
  const std::optional<double> round_timeout = deadline_.timeout(round, waits_for);
  row.predicted_deadline = deadline_.adaptive();
  if (row.predicted_deadline) row.timeout_s = round_timeout;
  const RoundClock clock(started, round_timeout, deadline);
  const double closes = clock.closes;
  double until = clock.until;  // past `closes` while a round below min_updates is extended
  bool extended = false;
  const auto& selection = state_.scenario.training.selection;
  const auto min_updates = static_cast<size_t>(selection.min_updates.value_or(0));
  // Wait for every expected update; a member whose update failed no longer owes one. Within a round a
  // member only stops owing (its update arrives or fails; models go out before the loop), so the scan
  // resumes where it stopped: linear in the members over the round, not per update.
  size_t first_owing = 0;
  auto owed = [&] {
    while (first_owing < n &&
           !(waits_for[first_owing] && !arrived[first_owing] && state_.live[members_[first_owing]].model_outstanding))
      ++first_owing;
    return first_owing < n;
  };
  auto any_outstanding = [&] {
    for (size_t device : members_)
      if (state_.live[device].model_outstanding) return true;
    return false;
  };
  // With nobody to wait for (devices off, or busy with an earlier round), the round still
  // lasts until it closes, or without a timeout until a straggler of an earlier round delivers
  // or fails: late updates are received meanwhile, and time moves on.
  // An update computed on another model version is late (with secure aggregation, also one from a device
  // outside the round's masked-input phase).
  auto count_late = [&](std::unique_ptr<UpdateMessage> update) {
    state_.count_delivered(*update, inbox_.host());
    if (state_.privacy) state_.privacy->update_received(update->device);  // local DP: each update a release
    state_.updates.late_pushes += 1;
    state_.devices[update->device].late_pushes += 1;
    row.late += 1;
    const size_t m = position_.at(update->device);
    const double round_time_s = sg4::Engine::get_clock() - sent_at_[m];
    selection_.delivered(m, round_time_s);
    deadline_.observed(m, round_time_s);
  };
  // Secure aggregation: the key phases first; a round they fail goes no further.
  bool secure_failed = secure_ && !secure_->failure().empty();
  if (secure_failed) {
    // Too few devices could take part: no model went out. The round lasts until it closes; without a
    // timeout nothing would change at this instant, so the run ends here, saying why.
    if (until >= 0) {
      sg4::this_actor::sleep_until(until);
      result.ended = deadline >= 0 && sg4::Engine::get_clock() >= deadline;
    } else {
      state_.stop("completed", secure_->failure() + " (round " + std::to_string(round) +
                                   "; training.round_timeout_s lets the run wait for more devices)");
    }
  }
  if (secure_ && !secure_failed && !secure_->key_phases(deadline, count_late)) {
    if (secure_->ended()) {
      result.ended = true;
      log_picks(row, waits_for, arrived, arrived_at, false, true, false);
      return result;
    }
    secure_failed = true;
  }
  bool heard = false;
  if (expected == 0 && closes < 0 && selection_.uses_availability() && !any_outstanding()) wait_for_data(until);
  auto waiting = [&] {
    if (secure_failed) return false;
    // Extended past its timeout, a round closes as soon as it has min_updates.
    if (expected > 0) return present < (extended ? min_updates : target) && owed();
    return closes >= 0 || (!heard && any_outstanding());
  };
  while (waiting()) {
    std::unique_ptr<Message> next = inbox_.next(until);
    heard = true;
    if (!next) {
      if (until >= 0 && sg4::Engine::get_clock() >= until) {
        result.ended = deadline >= 0 && sg4::Engine::get_clock() >= deadline;
        if (!result.ended && present < min_updates && selection.below_min == "extend" && owed()) {
          until = deadline;  // below min_updates: the round waits on for the updates still owed
          extended = true;
          continue;
        }
        break;  // the round closes with what arrived (or the run ends)
      }
      continue;  // poked: a member failed; check again who still owes an update
    }
    if (auto* stale = dynamic_cast<SecureMessage*>(next.get())) {
      // Secure aggregation: a key-phase answer that came after its phase closed (the device was aborted).
      state_.count_upload(stale->device, inbox_.host(), stale->bytes, stale->bytes);
      continue;
    }
    std::unique_ptr<UpdateMessage> update = expect<UpdateMessage>(std::move(next), me);
    // One from a member this round did not send to, computed on this version, is a straggler of an earlier
    // round that closed empty: as fresh as any, it is aggregated (and counted in the round that selected it
    // as not missing), unless the round's sum is a secure aggregation's.
    if (update->round != round || (secure_ && !secure_->expects(update->device))) {
      count_late(std::move(update));
      continue;
    }
    state_.count_delivered(*update, inbox_.host());
    if (state_.privacy) state_.privacy->update_received(update->device);  // local DP: each update a release
    const size_t m = position_.at(update->device);
    const double round_time_s = sg4::Engine::get_clock() - sent_at_[m];
    injection_.collect(*update);
    result.finite = result.finite && std::isfinite(update->loss);
    // Secure aggregation: the protocol sums the masked inputs, each of weight 1.
    const double w = secure_ ? 1.0 : mode_.weight(update->samples);
    if (secure_) {
      secure_->masked(*update);
    } else {
      sum_.note_arrival({.device = update->device, .round = update->round, .samples = update->samples, .weight = w,
                         .loss = update->loss, .staleness = 0, .arrival_s = sg4::Engine::get_clock(),
                         .round_time_s = round_time_s, .bytes = update->bytes});
      sum_.accumulate(update->update, m, w);
    }
    weight_total += w;
    result.samples += static_cast<double>(update->samples);
    selection_.aggregated(m, update->samples, update->loss, round_time_s);
    deadline_.observed(m, round_time_s);
    arrived[m] = true;
    arrived_at[m] = sg4::Engine::get_clock();
    present += 1;
    if (!waits_for[m]) stragglers += 1;
    row.slowest_device = state_.devices[update->device].device;
  }
  if (secure_ && !secure_failed && !result.ended && !secure_->closing_phases(deadline, count_late)) {
    result.ended = secure_->ended();
    secure_failed = !result.ended;
  }
  if (result.ended) {
    // The round in flight is abandoned: its updates are not applied (missing, as those still out).
    state_.updates.selections_missing += static_cast<int64_t>(present);
    log_picks(row, waits_for, arrived, arrived_at, false, true, false);
    return result;
  }
  if (secure_) {
    row.secure = secure_->record();
    for (size_t p = 0; p < row.secure->seconds.size(); ++p) {
      state_.secure_totals.seconds[p] += row.secure->seconds[p];
      state_.secure_totals.bytes[p] += row.secure->bytes[p];
    }
    state_.secure_totals.clipped_coordinates += row.secure->clipped_coordinates;
    if (secure_failed) state_.secure_rounds_failed += 1;
  }
  injection_.close_round();
  selection_.round_closed();
  // Selected, not aggregated (a straggler aggregated here was counted missing by its own round).
  const auto missing = static_cast<int64_t>(selected + stragglers - present);
  state_.updates.missing_updates += missing;
  row.updates = static_cast<int64_t>(present);
  row.missing = missing;
  // Fewer than min_updates arrived (the round was skipped, or extended with nobody left owing one):
  // nothing is applied, and what arrived is dropped.
  const bool below_min = present > 0 && present < min_updates;
  if (present == 0) {
    state_.updates.empty_rounds += 1;  // nothing to apply: the model (and its version) stay as they are
  } else if (below_min || secure_failed) {
    // What arrived is dropped: below min_updates, or masked inputs the failed protocol cannot unmask.
    state_.updates.rounds_below_min += below_min ? 1 : 0;
    state_.updates.selections_discarded += static_cast<int64_t>(present);
    if (!secure_) sum_.discard_accumulated();
  } else {
    if (secure_) sum_.accumulate_sum(secure_->protocol()->sum(), static_cast<int64_t>(present));
    const int64_t params = state_.backend.cost().params;
    const auto updates = static_cast<int64_t>(present);
    const double declared = state_.policies.strategy ? state_.policies.strategy->server_flops(round, updates, params) : 0.0;
    sg4::this_actor::execute(apply_flops(params, updates) + cost_.extra_flops(params, updates) + declared);
    result.finite = sum_.apply_accumulated(mode_.round_lr(result.samples), weight_total) && result.finite;
    row.applied = true;
    if (state_.privacy)
      state_.privacy->round_applied(static_cast<int64_t>(selected), static_cast<int64_t>(n),
                                    static_cast<int64_t>(present));
    for (size_t m = 0; m < n; ++m)
      if (arrived[m]) state_.devices[members_[m]].rounds_aggregated += 1;
    XBT_DEBUG("%s: round %ld applied", me.c_str(), static_cast<long>(round));
  }
  if (extended) state_.updates.rounds_extended += 1;
  if (state_.privacy) row.epsilon = state_.privacy->epsilon();
  row.end_s = sg4::Engine::get_clock();
  log_picks(row, waits_for, arrived, arrived_at, row.applied, false, present >= target && expected > 0);
  for (size_t m = 0; m < n; ++m)
    if (waits_for[m]) last_round_end_[m] = row.end_s;
  row.bytes_up = state_.bytes_up - up_before;
  row.bytes_down = state_.bytes_down - down_before;
  return result;
}

}  // namespace edgetrain::sim
