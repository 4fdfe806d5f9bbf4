// The warning of a run whose default results folder (no --out) holds the results of a different
// scenario: they are replaced, as any rerun replaces them, but the user is told which keys differ.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "report/results_dir.hpp"

namespace edgetrain::sim {

// "results/q held the results of a different scenario (training.lr 0.05 -> 0.1); they are
// replaced (use --out DIR to keep both)" when the folder's scenario.json differs from `resolved`
// (`shown`: the folder as the user would type it); empty when it holds no results or the same scenario.
std::optional<std::string> replaced_results_warning(const report::ResultsDir& results,
                                                    const std::filesystem::path& shown, const nlohmann::json& resolved);

}  // namespace edgetrain::sim
