// See fleet_buffers.hpp.
#include "report/fleet_buffers.hpp"

#include <algorithm>

namespace edgetrain::report {

void FleetBufferSeries::account(const BufferPoint& p, int64_t sign) {
  total_.buffered_samples += sign * p.buffered_samples;
  total_.buffered_bytes += sign * p.buffered_bytes;
  total_.arrived += sign * p.arrived;
  total_.taken += sign * p.taken;
  total_.dropped += sign * p.dropped;
}

void FleetBufferSeries::emit(double at) {
  total_.sim_time_s = at;
  emit_(total_);
}

void FleetBufferSeries::add(const BufferPoint& p) {
  // An instant before this row is complete: every row at or before it has come.
  for (; at(next_) < p.sim_time_s; ++next_) emit(at(next_));
  seen_ = true;
  auto [it, added] = last_.emplace(p.device, p);
  if (!added) {
    account(it->second, -1);
    it->second = p;
  }
  account(p, +1);
}

void FleetBufferSeries::finish(double end_s) {
  if (!seen_) return;
  for (;; ++next_) {
    const double t = std::min(at(next_), end_s);
    emit(t);
    if (t >= end_s) break;
  }
}

std::vector<FleetBufferPoint> fleet_buffer_series(const std::vector<BufferPoint>& rows, double every_s, double end_s) {
  std::vector<FleetBufferPoint> out;
  FleetBufferSeries series(every_s, [&out](const FleetBufferPoint& p) { out.push_back(p); });
  for (const BufferPoint& p : rows) series.add(p);
  series.finish(end_s);
  return out;
}

}  // namespace edgetrain::report
