// What the packet-level reference replays: the links of a platform as plain numbers, and the
// transfers of a run as a causal graph (a transfer starts `gap_s` after the last of its causes
// ends; one without causes starts at `start_s`). Neither SimGrid nor ns-3 here: sim/ fills it from
// a flow-level run (sim/core/transfer_log.hpp) or the calibration builds it from route classes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace edgetrain::packet {

struct Link {
  std::string name;
  double bandwidth_Bps = 0;  // bytes per second, as SimGrid reads the platform
  double latency_s = 0;
  // SHARED: every flow crossing it shares its bandwidth, whatever its direction (SimGrid's
  // semantics; a SPLITDUPLEX link reaches here as its _UP and _DOWN halves). FATPIPE and Wi-Fi
  // links cannot be mapped (replay.hpp refuses them).
  enum class Sharing { shared, fatpipe, wifi } sharing = Sharing::shared;
};

struct Transfer {
  std::string src, dst;         // host names
  int64_t bytes = 0;            // payload of the TCP connection (the message's bytes in SimGrid)
  std::vector<size_t> route;    // links from src to dst (indices into Workload::links)
  std::vector<size_t> causes;   // transfers that must end first (indices into Workload::transfers)
  double gap_s = 0;             // after the last cause ends (compute, aggregation, waiting for data)
  double start_s = 0;           // when it starts, for a transfer without causes
  int64_t round = 0;            // for the reports only
  double flow_start_s = 0, flow_end_s = 0;  // the flow-level run's times, for the reports only
};

struct Workload {
  std::vector<Link> links;
  std::vector<Transfer> transfers;
};

}  // namespace edgetrain::packet
