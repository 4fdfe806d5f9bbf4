// The rounds of a round-based aggregator (modes sync, scadles, local-sgd with sync aggregation)
// over its members, one at a time: what the flat server does every round (sync_aggregator.hpp) and
// a site aggregator every site round (sim/topology/). Each round it sends the current model to
// every selected member that is on and not still busy with an earlier round, takes their updates as
// they arrive (uploads proceed concurrently and contend on shared links: inbox.hpp) and adds each
// to the round's weighted sum at once, in arrival order, so no update is held until the round
// ends; then it is charged the aggregation and update FLOPs on its host and applies the sum
// (backend/mode.hpp says how updates are weighted and the learning rate scaled). A round closes
// when every expected update arrived or failed, when the K it aggregates arrived (over-selection:
// those that come after are late), or at training.round_timeout_s. Members are picked by
// training.selection (selection.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "backend/mode.hpp"
#include "backend/model_store.hpp"
#include "report/run_record.hpp"
#include "report/selection_log.hpp"
#include "sim/aggregate/injection.hpp"
#include "sim/aggregate/round_deadline.hpp"
#include "sim/aggregate/secure_phases.hpp"
#include "sim/aggregate/selection.hpp"
#include "sim/core/inbox.hpp"
#include "sim/core/run_state.hpp"
#include "strategy/aggregation_cost.hpp"

namespace edgetrain::sim {

// When a round that started at `started` stops waiting: at training.round_timeout_s (`closes`, -1
// without one) or at stop.sim_time_s (`deadline`, -1 without one), whichever comes first (`until`).
struct RoundClock {
  double closes, until;
  RoundClock(double started, const std::optional<double>& timeout, double deadline)
      : closes(timeout ? started + *timeout : -1),
        until(closes < 0 ? deadline : (deadline < 0 ? closes : std::min(closes, deadline))) {}
};

struct RoundResult {
  report::RoundRow row;  // start, end, updates, late, missing, bytes, slowest device; applied
  double samples = 0;    // samples of the updates applied
  bool finite = true;    // losses and the model stayed finite
  bool ended = false;    // stop.sim_time_s came during the round: it was abandoned, nothing applied
};

class SyncRounds {
 public:
  // `store`: the aggregator's, as a model source and in round aggregation. `selection_seed`: the
  // seed of the members' selection draws (selection.hpp).
  SyncRounds(RunState& state, Inbox& inbox, std::vector<size_t> members, backend::ModelStore& store,
             uint64_t selection_seed);
  // One round: its models carry `round` (an update of another round arrives late); `draw` numbers
  // the round's selection. Counts late, missing and empty rounds in the run's totals.
  RoundResult run(int64_t round, int64_t draw);
  size_t members() const { return members_.size(); }
  // FLOPs charged per round: summing n updates, scaling, and the SGD update (5 per param).
  static double apply_flops(int64_t params, int64_t updates) {
    return static_cast<double>(params) * static_cast<double>(updates + 5);
  }

 private:
  // Sends this round's model to the selected members that can take it; returns those it waits for
  // (member positions) and sets `selected`.
  std::vector<bool> send_models(int64_t round, int64_t draw, double started, size_t& selected);
  // Per member: on, not busy with an earlier round, and (streaming) a full batch at hand now.
  std::vector<bool> available(double now) const;
  // A round with nobody to wait for, no timeout and no straggler out (kinds available and oort:
  // no device has a full batch yet): sleeps until the first device that is on will have one.
  void wait_for_data(double until);
  // Before a round draws: while every member is off and no update is out, waits for one to come back
  // (its switch-on pokes the inbox) rather than run rounds that can reach nobody. False when the run's
  // deadline came first.
  bool wait_for_a_member();
  // selections.csv: the outcome of each member this round picked (picks_), once it closed.
  void log_picks(const report::RoundRow& row, const std::vector<bool>& waits_for, const std::vector<bool>& arrived,
                 const std::vector<double>& arrived_at, bool applied, bool ended, bool had_k);
  RunState& state_;
  Inbox& inbox_;
  std::vector<size_t> members_;
  std::vector<size_t> position_;  // device index -> member position
  backend::ModelSource& source_;
  backend::RoundAggregation& sum_;
  // The mode over these members: a site's rounds scale the learning rate with its own global batch
  // (training.base_global_batch defaults to batch_size x members).
  const backend::Mode mode_;
  Injection injection_;
  RoundSelection selection_;
  std::vector<double> sent_at_;  // per member: when its last model was sent (its round time's start)
  std::vector<double> last_round_end_;  // per member: when the last round that sent it a model closed
  std::optional<SecurePhases> secure_;   // secure aggregation: the round in progress's protocol
  // Per member, this round: why a picked member was sent no model (off, busy), or sent (nullopt: not
  // picked, or sent; the round's close decides what became of a sent one).
  std::vector<std::optional<report::PickOutcome>> unsent_;
  std::vector<bool> picked_;
  strategy::AggregationCost cost_;
  int64_t extra_model_bytes_;  // a Python strategy's state beside every model (message_bytes)
  RoundDeadline deadline_;  // when a round stops waiting (training.deadline)  // a robust rule's or an adaptive optimiser's FLOPs beyond the mean
};

}  // namespace edgetrain::sim
