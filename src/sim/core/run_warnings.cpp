// See run_warnings.hpp.
#include "sim/core/run_warnings.hpp"

#include <cstdio>
#include <optional>

#include "scenario/diff.hpp"
#include "scenario/warnings.hpp"
#include "util/printable.hpp"

namespace edgetrain::sim {
namespace {

std::optional<std::string> replaced_results_warning(const report::ResultsDir& results,
                                                    const std::filesystem::path& shown,
                                                    const nlohmann::json& resolved) {
  const std::optional<nlohmann::json> previous = results.previous_scenario();
  if (!previous) return std::nullopt;
  const std::vector<scenario::Difference> differences = scenario::differences(*previous, resolved);
  if (differences.empty()) return std::nullopt;
  return util::printable(shown.string() + " held the results of a different scenario (" +
                         scenario::differences_text(differences) + "); they are replaced (use --out DIR to keep both)");
}

}  // namespace

std::vector<std::string> run_warnings(const scenario::Scenario& scenario, const report::ResultsDir& results,
                                      const std::filesystem::path& shown, bool default_folder) {
  std::vector<std::string> out = scenario::warnings(scenario);
  if (default_folder) {
    if (auto replaced = replaced_results_warning(results, shown, scenario.resolved)) out.push_back(*replaced);
  }
  return out;
}

void print_warnings(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) std::fprintf(stderr, "edgetrain: warning: %s\n", w.c_str());
}

}  // namespace edgetrain::sim
