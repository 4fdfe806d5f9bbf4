// buffers_fleet.csv: the fleet's stream buffers summed at a regular interval, from the per-device
// timeline of buffers.csv (each device counted at its last row at or before each instant), so the
// two files always agree.
#pragma once

#include <vector>

#include "report/run_record.hpp"

namespace edgetrain::report {

// One point every `every_s` from 0 up to `end_s`, and one at `end_s`; `rows` in time order.
std::vector<FleetBufferPoint> fleet_buffer_series(const std::vector<BufferPoint>& rows, double every_s, double end_s);

}  // namespace edgetrain::report
