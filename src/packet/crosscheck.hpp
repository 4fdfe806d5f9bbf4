// What `edgetrain crosscheck` reports: each transfer's time under the flow model beside its time
// in the packet-level replay, and the errors by message size, by how many flows shared the busiest
// link of its route, and by round. The replay runs under several router queues (queue_spread): the
// headline figures come from the default queue, and each round's time under every queue gives TCP's
// own range, inside which the flow model counts as right. Transfers the reference itself got wrong
// (reference anomalies, replay.hpp) are listed apart and every headline figure is given with and
// without them. No ns-3 here: it reads a workload and its replays' timings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "packet/replay.hpp"
#include "packet/tcp_settings.hpp"
#include "packet/workload.hpp"

namespace edgetrain::packet {

struct QueueReplay {
  QueueConfig queue;
  std::vector<Timing> timing;  // one entry per transfer of the workload
};

struct CrosscheckReport {
  std::string csv;      // crosscheck.csv: one row per transfer
  std::string json;     // crosscheck.json: the summary, the TCP compared against
  std::string text;     // a few lines for the terminal
};

// How far a model's round time is outside TCP's range across queues: model / nearest end - 1, 0 inside.
double error_to_range(double model_s, double lo_s, double hi_s);

// `replays` holds the replay under `tcp.queue` and under every other queue of the spread; `local`
// counts a host's messages to itself, which have no network to replay.
CrosscheckReport crosscheck_report(const Workload& workload, const std::vector<QueueReplay>& replays,
                                   const TcpSettings& tcp, int64_t local);

}  // namespace edgetrain::packet
