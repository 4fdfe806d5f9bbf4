// Reading the device-trace files of `traces` (docs/how-to/device-traces.md), checked row by row:
//  - availability, rows `device,start_s,end_s`: the intervals [start_s, end_s) in which a device is
//    on. A device's rows may come in any order; they may touch (then they merge) but not overlap.
//  - capacity, rows `device,compute_ms_per_sample,bandwidth_kbps` (FedScale's fields): one row per
//    device.
// A first line holding no number is a header; blank lines and `#` comments are skipped. Every
// refusal is one input::Error line naming the key, the file and the line. The scenario's `traces`
// and a fleet class's traces read them.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace edgetrain::input {

// One device of a trace: its name as the file writes it and the line of its first row.
struct TraceDevice {
  std::string name;
  int line = 0;
};

struct OnInterval {
  double start_s = 0, end_s = 0;
};

struct AvailabilityTrace {
  std::vector<TraceDevice> devices;         // in the order of their first row
  std::vector<std::vector<OnInterval>> on;  // per device, sorted, disjoint, touching ones merged
  double on_s(size_t device) const;         // the device's total on time
};

struct DeviceCapacity {
  double compute_ms_per_sample = 0, bandwidth_kbps = 0;
};

struct CapacityTrace {
  std::vector<TraceDevice> devices;  // in file order
  std::vector<DeviceCapacity> rows;  // per device
};

// `key` names the scenario key in messages ("traces.availability"); `name` is the file as shown.
AvailabilityTrace parse_availability(std::string_view content, const std::string& key, const std::string& name);
CapacityTrace parse_capacity(std::string_view content, const std::string& key, const std::string& name);
AvailabilityTrace read_availability(const std::filesystem::path& file);  // key traces.availability
CapacityTrace read_capacity(const std::filesystem::path& file);          // key traces.capacity

}  // namespace edgetrain::input
