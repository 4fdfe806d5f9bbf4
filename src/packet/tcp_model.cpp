#include "packet/tcp_model.hpp"

#include <algorithm>
#include <cmath>

namespace edgetrain::packet {

double TcpModel::rate_Bps(double one_way_s, double bottleneck_Bps) const {
  const double rate = efficiency * bottleneck_Bps;
  return one_way_s > 0 ? std::min(rate, receive_window_bytes / (2 * one_way_s)) : rate;
}

double TcpModel::lone_transfer_s(double bytes, double one_way_s, double bottleneck_Bps) const {
  const double rate = rate_Bps(one_way_s, bottleneck_Bps);
  const double rtt = 2 * one_way_s;
  double window = initial_window_bytes, sent = 0, t = 0;
  // Each round trip of slow start carries one window, while the window is below the path's
  // bandwidth-delay product and the message is not yet out.
  while (sent + window < bytes && window < rate * rtt) {
    sent += window;
    t += rtt;
    window *= growth;
  }
  return t + (bytes - sent) / rate + one_way_s;
}

TcpModel fit_tcp_model(const std::vector<LonePoint>& points, const TcpModel& start) {
  TcpModel best = start;
  double best_error = INFINITY;
  // Grid points as integer steps divided once: a sum of 0.002 steps drifts past 1 (1.0000000000000004),
  // which a calibration file must not hold (read_calibration bounds efficiency to [0.01, 1]).
  for (int g = 120; g <= 250; ++g) {
    for (int e = 250; e <= 500; ++e) {
      TcpModel m = start;
      m.growth = g / 100.0;
      m.efficiency = e / 500.0;
      double squares = 0;
      for (const LonePoint& p : points) {
        const double e = std::log(m.lone_transfer_s(p.bytes, p.one_way_s, p.bottleneck_Bps) / p.packet_s);
        squares += e * e;
      }
      if (squares < best_error) {
        best_error = squares;
        best = m;
      }
    }
  }
  return best;
}

}  // namespace edgetrain::packet
