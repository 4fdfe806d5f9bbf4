// What `edgetrain crosscheck` reports: each transfer's time under the flow model beside its time
// in the packet-level replay, and the errors by message size, by how many flows shared the busiest
// link of its route, and by round. No ns-3 here: it reads a workload and its replay's timings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "packet/replay.hpp"
#include "packet/tcp_settings.hpp"
#include "packet/workload.hpp"

namespace edgetrain::packet {

struct CrosscheckReport {
  std::string csv;      // crosscheck.csv: one row per transfer
  std::string json;     // crosscheck.json: the summary, the TCP compared against
  std::string text;     // a few lines for the terminal
};

// `local` counts a host's messages to itself, which have no network to replay.
CrosscheckReport crosscheck_report(const Workload& workload, const std::vector<Timing>& packet, const TcpSettings& tcp,
                                   int64_t local);

}  // namespace edgetrain::packet
