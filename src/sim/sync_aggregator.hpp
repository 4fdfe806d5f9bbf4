// The round-based aggregator (modes sync, scadles, local-sgd with sync aggregation), a role
// built with its inbox, the devices it serves (its members) and the model store where its model
// lives. Each round it sends the current model to every member that is on and not still busy
// with an earlier round, takes their updates as they arrive (uploads proceed concurrently and
// contend on shared links: inbox.hpp) and adds each to the round's weighted sum at once, in
// arrival order, so no update is held until the round ends; then it is charged the aggregation
// and update FLOPs on its host and applies the sum (backend/mode.hpp says how updates are
// weighted and the learning rate scaled). A round goes to the members training.selection picks
// (selection.hpp) and closes when every expected update arrived or failed, when the K it aggregates
// arrived (over-selection: those that come after are late), or at training.round_timeout_s.
#pragma once

#include <memory>
#include <vector>

#include "sim/inbox.hpp"
#include "sim/injection.hpp"
#include "sim/run_state.hpp"
#include "sim/selection.hpp"

namespace edgetrain::sim {

class SyncAggregator {
 public:
  SyncAggregator(RunState& state, Inbox& inbox, std::vector<size_t> members, backend::ModelStore& store)
      : state_(state),
        inbox_(inbox),
        members_(std::move(members)),
        store_(store),
        injection_(state),
        selection_(state.scenario.training.selection, state.scenario.seed, members_.size()),
        sent_at_(members_.size(), 0.0) {}
  void operator()();
  // FLOPs charged per round: summing n updates, scaling, and the SGD update (5 per param).
  static double apply_flops(int64_t params, int64_t updates) {
    return static_cast<double>(params) * static_cast<double>(updates + 5);
  }

 private:
  // Sends this round's model to the selected members that can take it; returns those it waits for
  // (member positions) and sets `selected`.
  std::vector<bool> send_models(double started, size_t& selected);
  // Per member: on, not busy with an earlier round, and (streaming) a full batch at hand now.
  std::vector<bool> available(double now) const;
  // A round with nobody to wait for, no timeout and no straggler out (kinds available and oort:
  // no device has a full batch yet): sleeps until the first device that is on will have one.
  void wait_for_data(double until);
  RunState& state_;
  Inbox& inbox_;
  std::vector<size_t> members_;
  backend::ModelStore& store_;
  Injection injection_;
  RoundSelection selection_;
  std::vector<double> sent_at_;  // per member: when its last model was sent (its round time's start)
};

}  // namespace edgetrain::sim
