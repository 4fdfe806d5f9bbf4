// See sync_aggregator.hpp.
#include "sim/aggregate/sync_aggregator.hpp"

#include <simgrid/s4u.hpp>

#include "sim/core/observer.hpp"
#include "sim/core/privacy_run.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

void SyncAggregator::operator()() {
  while (!state_.should_stop(sg4::Engine::get_clock()) && !epsilon_budget_spent(state_, rounds_.members())) {
    // Rounds are numbered as they close (empty ones too), so that each round draws its own selection.
    RoundResult r = rounds_.run(state_.rounds_done, static_cast<int64_t>(state_.rounds.size()));
    if (r.ended) {
      state_.stop("completed", "stop.sim_time_s reached");
      break;
    }
    if (r.row.applied) state_.rounds_done += 1;
    state_.rounds.push_back(r.row);
    if (!r.row.applied) continue;
    if (r.finite) Observer::evaluate_if_near_target(state_, evaluation_);
    if (!r.finite) {
      state_.stop("diverged", "loss or parameters became NaN/Inf in round " + std::to_string(state_.rounds_done));
    }
  }
}

}  // namespace edgetrain::sim
