// See report.hpp.
#include "scenario/keys/report.hpp"

#include "scenario/error.hpp"
#include "scenario/rows.hpp"

namespace edgetrain::scenario::keys {

std::vector<KeySpec> report_rows() {
  return {
      quantity_key("eval.every_s", Unit::Seconds, "Simulated time between two test-set evaluations.")
          .above(0)
          .def(5.0)
          .fills(&Scenario::eval, &EvalSpec::every_s),
      integer_key("eval.test_samples", "Test samples per evaluation (capped at the test set).")
          .at_least(1)
          .limit(1e8, kWhySamples)
          .def(10000)
          .fills(&Scenario::eval, &EvalSpec::test_samples),

      integer_key("stop.rounds",
                  "Stop after this many aggregation rounds (async: model versions, one per `training.buffer_size` "
                  "applied pushes).")
          .at_least(1)
          .limit(1e12, kWhyCount)
          .no_limit()
          .fills(&Scenario::stop, &StopSpec::rounds),
      quantity_key("stop.sim_time_s", Unit::Seconds, "Stop at this simulated time.")
          .above(0)
          .no_limit()
          .fills(&Scenario::stop, &StopSpec::sim_time_s),
      number_key("stop.target_accuracy", "Stop once the test accuracy reaches this fraction.")
          .above(0)
          .at_most(1)
          .no_limit()
          .fills(&Scenario::stop, &StopSpec::target_accuracy),

      quantity_key("report.buffer_every_s", Unit::Seconds,
                   "buffers.csv keeps at most one row per device per this much simulated time.")
          .above(0)
          .def(1.0)
          .fills(&Scenario::report, &ReportSpec::buffer_every_s),
  };
}

std::vector<Rule> report_rules() {
  return {
      {"stop.target_accuracy", "Not with `training.compute` timing-only: no accuracy is measured there.",
       [](const nlohmann::json& r) {
         if (r.at("training").at("compute") != "timing-only" || r.at("stop").at("target_accuracy").is_null()) return;
         throw ScenarioError(
             "stop.target_accuracy: not available with training.compute timing-only: nothing is trained, so no "
             "accuracy is measured and nothing can reach it (set it to null and stop with stop.rounds or "
             "stop.sim_time_s)");
       }},
      {"stop", "At least one of `stop.rounds` and `stop.sim_time_s` must be set.",
       [](const nlohmann::json& r) {
         const auto& stop = r.at("stop");
         if (stop.at("rounds").is_null() && stop.at("sim_time_s").is_null()) {
           throw ScenarioError("stop: set stop.rounds or stop.sim_time_s (or both), otherwise the run never ends");
         }
       }},
  };
}

}  // namespace edgetrain::scenario::keys
