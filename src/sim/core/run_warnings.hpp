// The warnings of a run, printed once its set-up succeeded (so that bad input stays one line on
// stderr): the scenario's own (scenario/warnings.hpp) and, for the default results folder (no
// --out), that it holds the results of a different scenario. Those are replaced, as any rerun
// replaces them, but the user is told which keys differ.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "report/results_dir.hpp"
#include "scenario/scenario.hpp"

namespace edgetrain::sim {

// scenario::warnings(), then, when `default_folder` (no --out was given) and the folder's
// scenario.json differs from the scenario's resolved one: "results/q held the results of a
// different scenario (training.lr 0.05 -> 0.1); they are replaced (use --out DIR to keep both)"
// (`shown`: the folder as the user would type it).
std::vector<std::string> run_warnings(const scenario::Scenario& scenario, const report::ResultsDir& results,
                                      const std::filesystem::path& shown, bool default_folder);

// Each on its own line: "edgetrain: warning: ...".
void print_warnings(const std::vector<std::string>& warnings);

}  // namespace edgetrain::sim
