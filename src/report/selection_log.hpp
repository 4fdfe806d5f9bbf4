// selections.csv: what became of every device a synchronous round picked, written while the run goes
// (a row per pick grows with rounds, not with the fleet). It answers "why was this round slow, and
// who was left out": each row names the round, the aggregator, the device and the outcome, with when
// its update arrived. Rows of a round are written when it closes, in member order.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "report/csv_stream.hpp"

namespace edgetrain::report {

enum class PickOutcome {
  aggregated,  // its update arrived in time and entered the round's sum
  straggler,   // aggregated here, though an earlier round (closed empty) picked it
  discarded,   // arrived, but the round applied nothing (fewer than min_updates, or secure aggregation failed)
  cut,         // still computing when the round had its K updates (over-selection)
  timed_out,   // still computing when training.round_timeout_s closed the round
  failed,      // went off (or its transfer failed) during the round
  off,         // off when picked: no model was sent
  busy,        // still computing an earlier round's update when picked: no model was sent
  abandoned,   // the run ended (stop.sim_time_s) during the round
};

// The word selections.csv writes for `outcome` ("timed-out").
const char* outcome_name(PickOutcome outcome);

class SelectionLog {
 public:
  // Starts selections.csv in `folder` (the run's temporary folder), as BufferStreams does; without
  // it (a validation) rows are dropped.
  void open(const std::filesystem::path& folder, const std::filesystem::path& shown, const std::string& note);
  void record(int64_t round, double round_start_s, const std::string& aggregator, const std::string& device,
              PickOutcome outcome, std::optional<double> arrived_s);
  void close();  // throws OutputError

 private:
  CsvStream file_;
};

}  // namespace edgetrain::report
