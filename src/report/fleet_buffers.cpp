// See fleet_buffers.hpp.
#include "report/fleet_buffers.hpp"

#include <cmath>
#include <string>
#include <unordered_map>

namespace edgetrain::report {

std::vector<FleetBufferPoint> fleet_buffer_series(const std::vector<BufferPoint>& rows, double every_s, double end_s) {
  std::vector<FleetBufferPoint> out;
  if (rows.empty()) return out;
  std::unordered_map<std::string, BufferPoint> last;  // per device, its latest row
  FleetBufferPoint total;
  auto account = [&total](const BufferPoint& p, int64_t sign) {
    total.buffered_samples += sign * p.buffered_samples;
    total.buffered_bytes += sign * p.buffered_bytes;
    total.arrived += sign * p.arrived;
    total.taken += sign * p.taken;
    total.dropped += sign * p.dropped;
  };
  size_t next = 0;
  // Instants k * every_s, computed by multiplication so that no rounding accumulates.
  for (int64_t k = 0;; ++k) {
    const double at = std::min(static_cast<double>(k) * every_s, end_s);
    for (; next < rows.size() && rows[next].sim_time_s <= at; ++next) {
      const BufferPoint& p = rows[next];
      auto [it, added] = last.emplace(p.device, p);
      if (!added) {
        account(it->second, -1);
        it->second = p;
      }
      account(p, +1);
    }
    total.sim_time_s = at;
    out.push_back(total);
    if (at >= end_s) break;
  }
  return out;
}

}  // namespace edgetrain::report
