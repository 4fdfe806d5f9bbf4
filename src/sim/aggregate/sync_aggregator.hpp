// The flat round-based aggregator (modes sync, scadles, local-sgd with sync aggregation): the
// server's rounds over every device (sync_rounds.hpp says what a round does), each closed round a
// row of rounds.csv and each applied one a round of the run (stop.rounds), evaluated near the target.
#pragma once

#include <vector>

#include "sim/aggregate/sync_rounds.hpp"

namespace edgetrain::sim {

class SyncAggregator {
 public:
  SyncAggregator(RunState& state, Inbox& inbox, std::vector<size_t> members, backend::ModelStore& store)
      : state_(state),
        rounds_(state, inbox, std::move(members), store, state.scenario.seed),
        evaluation_(backend::role<backend::ModelEvaluation>(store)) {}
  void operator()();

 private:
  RunState& state_;
  SyncRounds rounds_;
  backend::ModelEvaluation& evaluation_;  // near the target, each applied round's model
};

}  // namespace edgetrain::sim
