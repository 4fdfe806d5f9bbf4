// The capacity invariant, checked on every run: no link ever carried more than its bandwidth. A
// result that breaks it is a wrong answer (SimGrid 3.32's lazy network solver produces such
// results: docs/explanation/time-model.md), so a violation is a warning on stderr and in
// summary.json (`capacity`, `warnings`), and a failed test.
//
// Two checks per link, from the link ledger:
// - the peak: the highest rate the link carried in any interval between two advances of the clock,
//   against its bandwidth then (exact: rates are constant between advances; link_ledger.hpp);
// - the average when busy: bytes delivered over bandwidth x busy time (links.csv
//   utilization_when_busy), on SHARED and SPLITDUPLEX links whose bandwidth never changed.
// On a FATPIPE link (the loopback, a cluster's FATPIPE backbone) SimGrid bounds each flow, not
// their sum: the peak is the largest flow's rate and the average is not checked. Wi-Fi links are
// not checked (their rate depends on the station). Under --cfg=network/model:ns-3 only the average
// is checked (ns-3's links have no solver constraint to read) and `peak_utilization` is null.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/run_record.hpp"
#include "sim/core/link_ledger.hpp"

namespace edgetrain::sim {

// Relative slack for SimGrid's own precision (its solver meets a bound to about 1e-5).
constexpr double kCapacityTolerance = 1e-4;

struct CapacityCheck {
  nlohmann::json summary;             // summary.json's `capacity` section
  std::vector<std::string> warnings;  // one per violation
};
CapacityCheck check_capacity(const LinkLedger& ledger, const std::vector<report::LinkRow>& rows);

// The warning for a network solver known to share bandwidth wrongly (network/optim:Lazy, or the
// selective update it relies on), read from SimGrid's configuration once the Engine exists.
std::optional<std::string> solver_warning();

}  // namespace edgetrain::sim
