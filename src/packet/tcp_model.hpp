// A lone TCP transfer's time as Linux's TCP makes it, alone on its path, emulated segment by segment
// (docs/explanation/fidelity.md): the sender opens with the initial window and grows it by every
// segment an acknowledgement covers (slow start), within the receive window; the receiver
// acknowledges the first segment at once, then every second one, and a lone one after the delayed-ACK
// timeout; the bottleneck sends frames (payload + headers) one after the other at its rate; each way
// takes the path's one-way latency. That places slow start's steps where TCP has them (a round trip,
// or a delayed-ACK timeout, later), which a closed form growing the window by a fixed factor per round
// trip missed by up to 20% just past each step. No loss: a lone transfer into deep queues has none
// but at slow start's overshoot, which `rate_factor` absorbs when calibrate fits it.
// Neither SimGrid nor ns-3 here: the default network model (sim/core/network_calibration.hpp) and a
// calibration both time transfers through it.
#pragma once

#include <vector>

namespace edgetrain::packet {

struct TcpModel {
  double mss_bytes = 1448;                 // a 1500-byte MTU less IPv4, TCP and the timestamp option
  double header_bytes = 54;                // PPP, IPv4 and TCP with timestamps, per frame
  double initial_window_segments = 10;     // RFC 6928, Linux since 2.6.39
  double receive_window_bytes = 4194304;   // SimGrid's network/TCP-gamma, as the reference has it
  double delayed_ack_s = 0.04;             // Linux's TCP_DELACK_MIN
  // What of its frame rate the bottleneck carries for this flow: 1 in the default model; a
  // calibration fits it per route class (losses at slow start's overshoot, recovery).
  double rate_factor = 1;

  // Seconds to deliver `bytes` over a path of `one_way_s` latency whose slowest link carries
  // `bottleneck_Bps`, alone on it.
  double lone_transfer_s(double bytes, double one_way_s, double bottleneck_Bps) const;
  // The payload rate once the window is open: the frames' payload share of the bottleneck (times
  // `rate_factor`), capped by a receive window per round trip.
  double rate_Bps(double one_way_s, double bottleneck_Bps) const;
};

// One measured point: a lone transfer and the packet-level time it took.
struct LonePoint {
  double bytes = 0, one_way_s = 0, bottleneck_Bps = 0, packet_s = 0;
};

// The rate factor (0.5 to 1, to 1e-3) that makes the model closest to the points in the least squares
// of the logarithm of model / packet time; the rest is kept from `start`.
TcpModel fit_tcp_model(const std::vector<LonePoint>& points, const TcpModel& start);

}  // namespace edgetrain::packet
