// See replaced_results.hpp.
#include "sim/replaced_results.hpp"

#include "scenario/diff.hpp"
#include "util/printable.hpp"

namespace edgetrain::sim {

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

}  // namespace edgetrain::sim
