// DIR/sweep.csv: one row per run of the expansion, in its order: the varied keys (one column per
// dotted key; empty where a run leaves the base scenario's value), `status` and `status_reason`,
// the summary figures of summary_columns() (units in their names; empty when the run has no
// results or the figure is null), then `folder` (relative to DIR). Text cells a spreadsheet would
// run as a formula get a leading ' (spreadsheet_text).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sweep/plan.hpp"

namespace edgetrain::sweep {

// The numeric figures of summary.json that sweep.csv carries, in column order: one edit adds one.
// Most are top-level keys of the same name; round_mean_s, round_median_s, round_p95_s, round_max_s
// are round_s's, and bytes_device_to_site, bytes_site_to_cloud, bytes_cloud_to_site,
// bytes_site_to_device are bytes_by_level's (empty unless the topology has sites).
const std::vector<std::string>& summary_columns();

// How one run of the plan ended up.
struct RunRow {
  std::string status;         // summary status, or failed (no summary) or pending (not run)
  std::string status_reason;  // the summary's reason, or the run's error line
  nlohmann::json summary;     // null without results
};

// A text cell as a spreadsheet shows it and never runs it (OWASP's advice against CSV formula
// injection): a leading ' before text that starts with =, +, @, a tab, a carriage return, or a -
// that does not start a number; before a leading ' too, so that readers (edgetrain plot and report)
// drop exactly one leading ' to get the text back.
std::string spreadsheet_text(const std::string& text);

// `rows` parallel to plan.runs.
std::string sweep_csv(const Plan& plan, const std::vector<RunRow>& rows);

}  // namespace edgetrain::sweep
