// `edgetrain schema`: the scenario keys, as a Markdown table (scenario::schema_markdown). It reads
// the options of run, so a mistake in them is one here too, and uses none.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/scenario_command.hpp"
#include "scenario/schema.hpp"

namespace edgetrain::cli {

int schema_command(const std::vector<std::string>& words) {
  ScenarioArgs args;
  if (const std::optional<int> status = read_scenario_args("schema", words, args)) return *status;
  std::cout << scenario::schema_markdown();
  return 0;
}

}  // namespace edgetrain::cli
