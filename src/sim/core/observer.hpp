// The observer: every eval.every_s of simulated time it evaluates the aggregator's current model
// on the test set (the back-end runs it on the worker pool, on a snapshot) and records the point;
// it decides stop.target_accuracy. Only when the back-end evaluates (not in timing-only mode).
#pragma once

#include "backend/model_store.hpp"
#include "sim/core/run_state.hpp"

namespace edgetrain::sim {

// How close (in test accuracy) the last evaluation must come to stop.target_accuracy for sync
// rounds to be evaluated as they end.
inline constexpr double kNearTarget = 0.01;

class Observer {
 public:
  Observer(RunState& state, backend::ModelEvaluation& model) : state_(state), model_(model) {}
  void operator()();
  // Evaluates the model now and records the point; also used for the final point. An
  // `interruptible` evaluation stops between batches when a signal comes, and records nothing.
  static void evaluate_now(RunState& state, backend::ModelEvaluation& model, double now, bool interruptible = false,
                           bool at_round_end = false);
  // Sync rounds: evaluates the model a round just produced when the last evaluation came within
  // kNearTarget of stop.target_accuracy, so that the time to target is exact to the round.
  static void evaluate_if_near_target(RunState& state, backend::ModelEvaluation& model);

 private:
  RunState& state_;
  backend::ModelEvaluation& model_;
};

}  // namespace edgetrain::sim
