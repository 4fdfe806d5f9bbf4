// See selection_log.hpp.
#include "report/selection_log.hpp"

namespace edgetrain::report {

const char* outcome_name(PickOutcome outcome) {
  switch (outcome) {
    case PickOutcome::aggregated: return "aggregated";
    case PickOutcome::straggler: return "straggler";
    case PickOutcome::discarded: return "discarded";
    case PickOutcome::cut: return "cut";
    case PickOutcome::timed_out: return "timed-out";
    case PickOutcome::failed: return "failed";
    case PickOutcome::off: return "off";
    case PickOutcome::busy: return "busy";
    case PickOutcome::abandoned: return "abandoned";
  }
  return "?";
}

void SelectionLog::open(const std::filesystem::path& folder, const std::filesystem::path& shown,
                        const std::string& note) {
  file_.open(folder / "selections.csv", (shown / "selections.csv").string(), note,
             {"round", "round_start_s", "aggregator", "device", "outcome", "arrived_s"});
}

void SelectionLog::record(int64_t round, double round_start_s, const std::string& aggregator,
                          const std::string& device, PickOutcome outcome, std::optional<double> arrived_s) {
  file_.row()
      .add(round)
      .add(round_start_s)
      .add(aggregator)
      .add(device)
      .add(std::string(outcome_name(outcome)))
      .add(arrived_s ? format_number(*arrived_s) : std::string());
}

void SelectionLog::close() { file_.close(); }

}  // namespace edgetrain::report
