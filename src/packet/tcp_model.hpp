// A lone TCP transfer's time, as slow start makes it: the first round trip carries the initial
// window, each next one `growth` times more (2: Linux, and ns-3, grow the window by the segments
// each acknowledgement covers, so delayed acknowledgements do not slow slow start), until the window holds the path's bandwidth-delay product; the rest goes at the
// payload rate (the bottleneck's bandwidth times `efficiency`: what headers leave of a frame, capped
// by the receive window per round trip). Then the last byte's one-way latency. The flow model
// (CM02) gives latency + size / bandwidth: this is what the calibration bends it to, through
// SimGrid's per-communication factors (sim/core/network_calibration.hpp).
#pragma once

#include <vector>

namespace edgetrain::packet {

struct TcpModel {
  double efficiency = 1448.0 / 1502.0;  // payload per frame: MSS over MSS + TCP/IP/timestamps/PPP headers
  double growth = 2.0;                  // window growth per round trip in slow start
  double initial_window_bytes = 10 * 1448.0;
  double receive_window_bytes = 4194304;

  // Seconds to deliver `bytes` over a path of `one_way_s` latency whose slowest link carries
  // `bottleneck_Bps`, alone on it.
  double lone_transfer_s(double bytes, double one_way_s, double bottleneck_Bps) const;
  // The rate the model sends at once the window is open.
  double rate_Bps(double one_way_s, double bottleneck_Bps) const;
};

// One measured point: a lone transfer and the packet-level time it took.
struct LonePoint {
  double bytes = 0, one_way_s = 0, bottleneck_Bps = 0, packet_s = 0;
};

// The efficiency and growth that make the model closest to the points in the least squares of the
// logarithm of model / packet time (a largest-error fit let the one point where ns-3's slow start
// steps a round trip later pull the rest off), searched on a grid (growth 1.2 to 2.5, efficiency 0.5 to 1); the windows are kept
// from `start`.
TcpModel fit_tcp_model(const std::vector<LonePoint>& points, const TcpModel& start);

}  // namespace edgetrain::packet
