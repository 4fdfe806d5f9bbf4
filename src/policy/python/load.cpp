// load_policies (policy.hpp): the Python classes a scenario names, each with a generator seeded from the
// scenario's seed and its own purpose.
#include "policy/policy.hpp"
#include "policy/python/selection.hpp"
#include "policy/python/strategy.hpp"
#include "scenario/error.hpp"
#include "util/seed.hpp"

namespace edgetrain::policy {

Policies load_policies(const scenario::Scenario& scenario, std::vector<compress::Layer> layers, int64_t params) {
  Policies out;
  out.metrics = std::make_shared<std::vector<MetricRow>>();
  const uint64_t seed = scenario.seed;
  if (scenario.strategy && scenario.strategy->python.given()) {
    std::vector<std::string> names;
    for (const auto& d : scenario.devices) names.push_back(d.name);
    out.strategy = std::make_shared<PythonStrategy>(
        load_class("strategy.python", scenario.strategy->python, util::derive_seed(seed, "python-strategy"), "aggregate_fit"),
        std::move(layers), std::move(names), out.metrics, params);
  }
  const scenario::SelectionSpec& selection = scenario.training.selection;
  if (selection.kind == "python") {
    if (out.strategy && out.strategy->round_configuration())
      throw scenario::ScenarioError("training.selection.kind python: the strategy's configure_fit picks the devices "
                                    "already; keep one of them");
    out.selection = make_python_selection(
        load_class("training.selection.python", selection.python, util::derive_seed(seed, "python-selection"), "select"));
  }
  if (scenario.training.deadline == "python") {
    out.deadline = make_python_deadline(load_class("training.deadline_python", scenario.training.deadline_policy,
                                                   util::derive_seed(seed, "python-deadline"), "deadline"));
  }
  return out;
}

}  // namespace edgetrain::policy
