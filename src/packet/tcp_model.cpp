#include "packet/tcp_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <queue>
#include <vector>

namespace edgetrain::packet {

namespace {

// The emulation's events, earliest first; at one instant arrivals before timers before ACKs, then in
// the order scheduled, so the result never depends on the heap's tie-breaking.
struct Event {
  double at;
  int kind;      // 0: a segment reaches the receiver, 1: the delayed-ACK timer fires, 2: an ACK reaches the sender
  int64_t seq;   // segments covered (arrival: its index + 1; timer: its generation; ACK: cumulative)
  int64_t order;
  bool operator>(const Event& o) const {
    if (at != o.at) return at > o.at;
    if (kind != o.kind) return kind > o.kind;
    return order > o.order;
  }
};

}  // namespace

double TcpModel::rate_Bps(double one_way_s, double bottleneck_Bps) const {
  const double rate = bottleneck_Bps * rate_factor * mss_bytes / (mss_bytes + header_bytes);
  return one_way_s > 0 ? std::min(rate, receive_window_bytes / (2 * one_way_s)) : rate;
}

double TcpModel::lone_transfer_s(double bytes, double one_way_s, double bottleneck_Bps) const {
  if (!(bytes > 0)) return one_way_s;
  const auto segments = static_cast<int64_t>(std::ceil(bytes / mss_bytes));
  const double last_bytes = bytes - static_cast<double>(segments - 1) * mss_bytes;
  const double frame_rate = bottleneck_Bps * rate_factor;  // bytes of frames per second
  const auto window_cap = std::max<int64_t>(1, static_cast<int64_t>(receive_window_bytes / mss_bytes));
  // Once the window covers twice the path's frames in flight (and the receive window does not cap
  // it), the sender is never waiting for an acknowledgement again: the rest leaves back to back.
  const double path_frames = frame_rate * 2 * one_way_s / (mss_bytes + header_bytes);
  const bool window_bound = static_cast<double>(window_cap) < 2 * path_frames + 4;

  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  int64_t order = 0, next = 0, acked = 0;
  double window = initial_window_segments, link_free = 0;
  const auto send = [&](double now) {
    while (next < segments && static_cast<double>(next - acked) < std::min(window, static_cast<double>(window_cap))) {
      if (!window_bound && window >= 2 * path_frames + 4) {
        // Back to back from here: the last frame's end, then its latency.
        const double rest = static_cast<double>(segments - 1 - next) * (mss_bytes + header_bytes) + last_bytes + header_bytes;
        return std::max(now, link_free) + rest / frame_rate + one_way_s;
      }
      const double frame = (next + 1 == segments ? last_bytes : mss_bytes) + header_bytes;
      link_free = std::max(now, link_free) + frame / frame_rate;
      events.push({link_free + one_way_s, 0, ++next, order++});
    }
    return -1.0;
  };
  if (const double done = send(0); done >= 0) return done;
  int64_t received = 0, pending = 0, timer = 0;  // in order so far; not yet acknowledged; the armed timer's generation
  bool first = true;
  while (!events.empty()) {
    const Event e = events.top();
    events.pop();
    if (e.kind == 0) {
      if (e.seq == segments) return e.at;
      received = e.seq;  // the bottleneck is a FIFO: segments arrive in order
      ++pending;
      if (first || pending >= 2) {
        first = false;
        pending = 0;
        ++timer;  // disarms the timer
        events.push({e.at + one_way_s, 2, e.seq, order++});
      } else if (pending == 1) {
        events.push({e.at + delayed_ack_s, 1, ++timer, order++});
      }
    } else if (e.kind == 1) {
      if (e.seq != timer || pending == 0) continue;
      pending = 0;
      events.push({e.at + one_way_s, 2, received, order++});
    } else if (e.seq > acked) {
      window += static_cast<double>(e.seq - acked);
      acked = e.seq;
      if (const double done = send(e.at); done >= 0) return done;
    }
  }
  return link_free + one_way_s;  // not reached: the last segment's arrival returns
}

TcpModel fit_tcp_model(const std::vector<LonePoint>& points, const TcpModel& start) {
  const auto squares = [&](int step) {
    TcpModel m = start;
    m.rate_factor = step / 1000.0;
    double sum = 0;
    for (const LonePoint& p : points) {
      const double e = std::log(m.lone_transfer_s(p.bytes, p.one_way_s, p.bottleneck_Bps) / p.packet_s);
      sum += e * e;
    }
    return sum;
  };
  // The error is unimodal in the rate factor (slower rates lengthen every transfer past slow start):
  // a ternary search on the integer grid 500..1000, then the few points left compared outright.
  int lo = 500, hi = 1000;
  while (hi - lo > 4) {
    const int a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
    if (squares(a) <= squares(b)) hi = b;
    else lo = a;
  }
  int best = lo;
  for (int s = lo + 1; s <= hi; ++s)
    if (squares(s) < squares(best)) best = s;
  TcpModel fit = start;
  fit.rate_factor = best / 1000.0;
  return fit;
}

}  // namespace edgetrain::packet
