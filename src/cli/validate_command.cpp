// `edgetrain validate SCENARIO.json [--seed N] [--set key.path=value]...`: loads the scenario, its
// platform, data and model as a run would (sim::check_scenario), simulates nothing, and describes
// what would run; its warnings once it is known valid.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/scenario_command.hpp"
#include "scenario/load.hpp"
#include "scenario/warnings.hpp"
#include "sim/core/run.hpp"
#include "sim/core/run_warnings.hpp"
#include "sim/core/stop_signal.hpp"

namespace edgetrain::cli {

int validate_command(const std::vector<std::string>& words) {
  ScenarioArgs args;
  if (const std::optional<int> status = read_scenario_args("validate", words, args)) return *status;
  return with_scenario(args, [](const scenario::Scenario& sc, const sim::RunOptions& options) {
    const std::string checked = sim::check_scenario(sc, options);
    if (sim::interrupt_requested()) return fail("interrupted", 130);
    sim::print_warnings(scenario::warnings(sc));  // once it is known valid: bad input stays one line
    std::cout << scenario::describe(sc) << checked << "scenario is valid\n";
    return 0;
  });
}

}  // namespace edgetrain::cli
