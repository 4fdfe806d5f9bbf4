// `edgetrain run SCENARIO.json [--out DIR] [--seed N] [--set key.path=value]... [--threads N]
// [--quiet]`: simulates the scenario and writes its results folder (sim::run_scenario). Exit
// status 3 when the run diverged, else as every command's (commands.hpp). Under mpirun or srun: mpi_run.hpp.
#include "cli/commands.hpp"
#include "cli/mpi_run.hpp"
#include "cli/scenario_command.hpp"
#include "mpi/launch.hpp"
#include "sim/core/run.hpp"

namespace edgetrain::cli {

int run_command(const std::vector<std::string>& words) {
  if (mpi::launched_by_mpi()) return run_under_mpi(words);  // rank 0 simulates, the others train
  ScenarioArgs args;
  if (const std::optional<int> status = read_scenario_args("run", words, args)) return *status;
  return with_scenario(args, sim::run_scenario);
}

}  // namespace edgetrain::cli
