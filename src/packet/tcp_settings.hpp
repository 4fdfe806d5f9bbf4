// The TCP that the packet-level reference runs (docs/explanation/fidelity.md says why each value).
// Defaults are Linux's as an edge device ships it; every value is recorded in crosscheck.json and
// in a calibration, so a comparison says what it compared against.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace edgetrain::packet {

// A router's queue at each link of the reference. Under contention TCP's outcome depends on it, so
// contended replays run under several (queue_spread) and report the range.
struct QueueConfig {
  enum class Kind {
    drop_tail,  // `packets` full frames, then drop
    bdp,        // drop-tail of one bandwidth-delay product (the link's rate x its longest path's RTT)
    fq_codel,   // Linux's default queue discipline: a queue per flow, CoDel's 5 ms target
  } kind = Kind::drop_tail;
  uint32_t packets = 1000;  // drop_tail only: Linux's txqueuelen, the depth edge routers ship with
  std::string name() const;
};

// The configurations a contended replay runs under: shallow, the default, one BDP, fq_codel.
std::vector<QueueConfig> queue_spread();

struct TcpSettings {
  std::string congestion = "ns3::TcpCubic";  // Linux's default
  // Linux's fast recovery. Its minutes-long stalls (docs/explanation/fidelity.md) were ns-3's timer
  // defaults, not PRR: with the two timers below Linux's, no contended round here stalls.
  std::string recovery = "ns3::TcpPrrRecovery";
  uint32_t mss_bytes = 1448;                 // 1500-byte MTU less IPv4, TCP and timestamp option
  uint32_t initial_window = 10;              // segments (RFC 6928, Linux since 2.6.39)
  // The receive window's upper bound: SimGrid's network/TCP-gamma (4 MiB), which bounds a flow to
  // gamma / (2 x latency) in the flow model, so both models cap a long path the same way.
  uint32_t receive_window_bytes = 4194304;
  QueueConfig queue;
  uint32_t data_retries = 15;  // Linux's tcp_retries2 (ns-3 gives up after 6 and never delivers)
  // Linux's TCP_RTO_MIN, as Linux applies it: a timeout waits at least this beyond the smoothed RTT
  // (linux_rtt.hpp; ns-3's own floor is 1 s on the whole timeout).
  double min_rto_s = 0.2;
  bool linux_rto = true;  // false: ns-3's own rule, min_rto_s the floor of the whole timeout (tests only)
  // Linux's TCP_DELACK_MIN. ns-3's 200 ms default equals the minimum RTO: a window of one segment
  // then waits for the timeout, retransmits spuriously and crawls at a segment per ~0.7 s.
  double delayed_ack_s = 0.04;
  // Every connection opens before the replay starts (no handshake in a transfer's time) and starts
  // each transfer from the initial window, as Linux does after an idle period (slow start after idle).
};

}  // namespace edgetrain::packet
