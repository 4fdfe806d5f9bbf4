// See observer.hpp.
#include "sim/core/observer.hpp"

#include <cmath>
#include <simgrid/s4u.hpp>

#include "sim/core/energy_meter.hpp"

namespace sg4 = simgrid::s4u;

namespace edgetrain::sim {

void Observer::evaluate_now(RunState& state, backend::ModelEvaluation& model, double now, bool interruptible,
                            bool at_round_end) {
  const std::optional<backend::Evaluation> evaluated =
      model.evaluate([interruptible] { return interruptible && interrupt_requested(); });
  if (!evaluated) return;  // a signal came: the run ends with the points so far
  const backend::Evaluation& r = *evaluated;
  report::EvalPoint point;
  point.sim_time_s = now;
  point.round = state.rounds_done;
  point.test_accuracy = r.accuracy;
  point.test_loss = r.loss;
  point.bytes_up = state.bytes_up;
  point.bytes_down = state.bytes_down;
  point.model_spread = r.model_spread;
  point.attack_success = r.attack_success;
  if (state.energy) {
    const EnergyTotals energy = state.energy->totals(state.links);
    point.devices_energy_j = energy.devices_j;
    point.energy_j = energy.total_j;
  }
  if (state.privacy) point.epsilon = state.privacy->epsilon();
  if (state.scenario.strategy && state.scenario.strategy->evaluates_devices()) {
    point.personal_devices = r.personal ? r.personal->devices : 0;
    if (r.personal) {
      point.personal_accuracy_mean = r.personal->mean;
      point.personal_accuracy_p10 = r.personal->p10;
    }
  }
  state.evals.push_back(point);
  state.best_accuracy = std::max(state.best_accuracy, r.accuracy);
  const auto& target = state.scenario.stop.target_accuracy;
  if (target && !state.time_to_target_s && r.accuracy >= *target) {
    state.time_to_target_s = now;
    if (state.evals.size() >= 2) state.target_bracket_from_s = state.evals[state.evals.size() - 2].sim_time_s;
    state.target_at_round_end = at_round_end;
    state.energy_to_target_j = point.energy_j;
    state.stop("target_reached", "stop.target_accuracy reached");
  }
  if (!std::isfinite(r.loss)) state.stop("diverged", "test loss became NaN/Inf");
}

void Observer::evaluate_if_near_target(RunState& state, backend::ModelEvaluation& model) {
  const auto& target = state.scenario.stop.target_accuracy;
  const double now = sg4::Engine::get_clock();
  if (!target || state.time_to_target_s || state.evals.empty() || !state.backend.trains()) return;
  const report::EvalPoint& last = state.evals.back();
  if (last.test_accuracy < *target - kNearTarget || last.sim_time_s >= now) return;
  evaluate_now(state, model, now, false, true);
}

void Observer::operator()() {
  while (true) {
    // The first point always completes, so that every run has one.
    evaluate_now(state_, model_, sg4::Engine::get_clock(), !state_.evals.empty());
    sg4::this_actor::sleep_for(state_.scenario.eval.every_s);
  }
}

}  // namespace edgetrain::sim
