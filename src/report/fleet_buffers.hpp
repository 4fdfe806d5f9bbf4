// buffers_fleet.csv: the fleet's stream buffers summed at a regular interval, from the per-device
// timeline of buffers.csv (each device counted at its last row at or before each instant), so the
// two files always agree. Computed as the rows come, so nothing grows with simulated time but
// the file.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "report/run_record.hpp"

namespace edgetrain::report {

// One point every `every_s` from 0 up to the end, and one at the end, given to `emit` in order.
// Rows come in time order (add); finish(end) emits the points the rows did not yet close.
class FleetBufferSeries {
 public:
  FleetBufferSeries(double every_s, std::function<void(const FleetBufferPoint&)> emit)
      : every_s_(every_s), emit_(std::move(emit)) {}
  void add(const BufferPoint& p);
  void finish(double end_s);  // nothing without rows

 private:
  double at(int64_t k) const { return static_cast<double>(k) * every_s_; }  // no rounding accumulates
  void account(const BufferPoint& p, int64_t sign);
  void emit(double at);
  double every_s_;
  std::function<void(const FleetBufferPoint&)> emit_;
  std::unordered_map<std::string, BufferPoint> last_;  // per device, its latest row
  FleetBufferPoint total_;
  int64_t next_ = 0;  // the next instant to emit: next_ * every_s
  bool seen_ = false;
};

// The whole series of `rows` (in time order) up to `end_s`.
std::vector<FleetBufferPoint> fleet_buffer_series(const std::vector<BufferPoint>& rows, double every_s, double end_s);

}  // namespace edgetrain::report
