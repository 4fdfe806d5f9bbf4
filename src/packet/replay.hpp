// The packet-level reference: replays a workload's causal graph of TCP transfers under ns-3 and
// returns when each transfer started and ended there. A transfer starts when its causes have ended
// in this replay (plus its gap), not at its flow-level time, so an error compounds along a chain as
// it would on a real network.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "packet/tcp_settings.hpp"
#include "packet/workload.hpp"

namespace edgetrain::packet {

struct Timing {
  double start_s = 0, end_s = 0;
  // Retransmission timeouts the sender took during the transfer, and the seconds it sat silent
  // waiting for them (from its last segment out to the timer's expiry).
  int64_t timeouts = 0;
  double backoff_s = 0;
  double seconds() const { return end_s - start_s; }
};

// A transfer that spent more than this share of its time waiting for retransmission timers is a
// reference anomaly: Linux recovers such losses within round trips (tail loss probes, RACK), which
// ns-3 3.37 lacks, so its time says more about the simulator than about TCP. Reports list these
// apart and give every headline figure with and without them.
inline constexpr double kAnomalyBackoffShare = 0.5;
inline bool is_anomaly(const Timing& t) { return t.backoff_s > kAnomalyBackoffShare * t.seconds(); }

// What packet-level TCP can carry within its timeouts and retries: a link of at least 10 kbit/s (a
// full segment in 1.2 s) and at most 10 s of latency (a geostationary hop is 0.25 s).
inline constexpr double kMinReplayBandwidth_Bps = 10e3 / 8;
inline constexpr double kMaxReplayLatency_s = 10;
// Why a link is outside those bounds (one line naming it), or "" when the reference can carry it.
std::string unreplayable(const Link& link);

// One entry per transfer of `workload`, in its order. Throws MappingError when the platform
// cannot be mapped (ns3_network.hpp) or a link is outside the bounds above, util::Interrupted when a
// signal comes during the replay.
// ns-3 keeps global state: call it from one thread; each call builds and destroys its own network.
std::vector<Timing> replay(const Workload& workload, const TcpSettings& tcp = {});

}  // namespace edgetrain::packet
