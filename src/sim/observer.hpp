// The evaluation observer: every eval.every_s of simulated time it evaluates the current
// global model on the test set. Evaluation takes wall time only, never simulated time, and
// records the first time the target accuracy is reached (the server then stops).
#pragma once

#include "sim/run_state.hpp"

namespace edgetrain::sim {

class Observer {
 public:
  explicit Observer(RunState& state) : state_(state) {}
  void operator()();
  // Evaluates the global model now and records the point; also used for the final point. An
  // `interruptible` evaluation stops between batches when a signal comes, and records nothing.
  static void evaluate_now(RunState& state, double now, bool interruptible = false);

 private:
  RunState& state_;
};

}  // namespace edgetrain::sim
