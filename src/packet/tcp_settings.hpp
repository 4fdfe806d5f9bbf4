// The TCP that the packet-level reference runs (docs/explanation/fidelity.md says why each value).
// Defaults are Linux's as an edge device ships it; every value is recorded in crosscheck.json and
// in a calibration, so a comparison says what it compared against.
#pragma once

#include <cstdint>
#include <string>

namespace edgetrain::packet {

struct TcpSettings {
  std::string congestion = "ns3::TcpCubic";  // Linux's default
  // Fast recovery as RFC 5681 has it. Linux recovers by PRR, but ns-3 3.37's PRR leaves flows that lost
  // a burst at a shared link stalled for minutes in back-off on an idle link (16 downloads of 10 MB on
  // scadles16: three ended after 235-313 s; with classic recovery all within 3.7 s, the flow model 3.5 s).
  std::string recovery = "ns3::TcpClassicRecovery";
  uint32_t mss_bytes = 1448;                 // 1500-byte MTU less IPv4, TCP and timestamp option
  uint32_t initial_window = 10;              // segments (RFC 6928, Linux since 2.6.39)
  // The receive window's upper bound: SimGrid's network/TCP-gamma (4 MiB), which bounds a flow to
  // gamma / (2 x latency) in the flow model, so both models cap a long path the same way.
  uint32_t receive_window_bytes = 4194304;
  // Router queues: at least a whole receive window of full frames (deep edge buffers: a lone flow
  // never overflows them), or one bandwidth-delay product when that is more.
  uint32_t min_queue_packets = 4194304 / 1448 + 1;
  uint32_t data_retries = 15;  // Linux's tcp_retries2 (ns-3 gives up after 6 and never delivers)
  double min_rto_s = 0.2;  // Linux's TCP_RTO_MIN (ns-3's own default is 1 s)
  // Every connection opens before the replay starts (no handshake in a transfer's time) and starts
  // each transfer from the initial window, as Linux does after an idle period (slow start after idle).
};

}  // namespace edgetrain::packet
