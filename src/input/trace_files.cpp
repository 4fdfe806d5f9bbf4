// See trace_files.hpp.
#include "input/trace_files.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "input/error.hpp"
#include "input/text.hpp"
#include "util/csv_lines.hpp"
#include "util/limits.hpp"
#include "util/read_input.hpp"

namespace edgetrain::input {
namespace {

// The slowest compute a capacity row may give: 10^7 ms (about 3 hours) per sample.
constexpr double kMaxMsPerSample = 1e7;
// Bandwidths as the platform file takes them (platform/bounds.hpp): 1 bit/s to 10^15 bit/s.
constexpr double kMinBandwidthBps = 1, kMaxBandwidthBps = 1e15;

// A finite number (the shared parser leaves "inf" and "nan" to its callers).
bool parse_number(std::string_view s, double& out) { return util::parse_number(s, out) && std::isfinite(out); }

// A row of three comma-separated fields: a device name and two numbers.
struct Row {
  std::string device;
  double a = 0, b = 0;
  int line = 0;
};

// The rows of a three-column file; `columns` names them for messages.
std::vector<Row> rows_of(std::string_view content, const std::string& where_file, const std::string& columns) {
  std::vector<Row> rows;
  for (const util::CsvLine& line : util::csv_lines(content)) {
    const auto& fields = line.fields;
    Row r;
    r.line = line.number;
    const bool numbers = fields.size() == 3 && parse_number(fields[1], r.a) && parse_number(fields[2], r.b);
    if (numbers && !fields[0].empty()) {
      r.device = std::string(fields[0]);
      rows.push_back(std::move(r));
      continue;
    }
    const std::string where = where_file + ":" + std::to_string(line.number);
    if (numbers) throw Error(where + ": the device name is empty");
    throw Error(where + ": expected \"" + columns + "\" (a name and two numbers), got \"" + util::quoted_line(line.text) +
                "\"");
  }
  if (rows.empty()) throw Error(where_file + ": no rows (expected \"" + columns + "\")");
  return rows;
}

}  // namespace

double AvailabilityTrace::on_s(size_t device) const {
  double total = 0;
  for (const OnInterval& i : on[device]) total += i.end_s - i.start_s;
  return total;
}

AvailabilityTrace parse_availability(std::string_view content, const std::string& key, const std::string& name) {
  const std::string file = key + ": " + name;
  const std::vector<Row> rows = rows_of(content, file, "device,start_s,end_s");
  AvailabilityTrace trace;
  std::map<std::string, size_t> index;
  std::vector<std::vector<const Row*>> of_device;
  for (const Row& r : rows) {
    const std::string where = file + ":" + std::to_string(r.line);
    if (r.a < 0) throw Error(where + ": start_s must be >= 0, got " + text::format_number(r.a));
    if (!(r.b > r.a)) {
      throw Error(where + ": end_s (" + text::format_number(r.b) + ") must be > start_s (" + text::format_number(r.a) +
                  ")");
    }
    if (r.b > util::kMaxTimeS) {
      throw Error(where + ": end_s must be <= " + text::format_number(util::kMaxTimeS) + " s (about 31.7 years), got " +
                  text::format_number(r.b));
    }
    const auto [it, fresh] = index.emplace(r.device, trace.devices.size());
    if (fresh) {
      trace.devices.push_back({r.device, r.line});
      of_device.emplace_back();
    }
    of_device[it->second].push_back(&r);
  }
  for (auto& list : of_device) {
    std::stable_sort(list.begin(), list.end(), [](const Row* x, const Row* y) { return x->a < y->a; });
    std::vector<OnInterval> on;
    const Row* last = nullptr;
    for (const Row* r : list) {
      if (last && r->a < last->b) {
        throw Error(file + ":" + std::to_string(std::max(r->line, last->line)) + ": device " +
                    text::show(nlohmann::json(r->device)) + ": interval [" + text::format_number(r->a) + ", " +
                    text::format_number(r->b) + ") overlaps [" + text::format_number(last->a) + ", " +
                    text::format_number(last->b) + ") of line " + std::to_string(std::min(r->line, last->line)));
      }
      if (last && r->a == on.back().end_s) {
        on.back().end_s = r->b;  // touching: one interval
      } else {
        on.push_back({r->a, r->b});
      }
      last = r;
    }
    trace.on.push_back(std::move(on));
  }
  return trace;
}

CapacityTrace parse_capacity(std::string_view content, const std::string& key, const std::string& name) {
  const std::string file = key + ": " + name;
  const std::vector<Row> rows = rows_of(content, file, "device,compute_ms_per_sample,bandwidth_kbps");
  CapacityTrace trace;
  std::map<std::string, int> seen;
  constexpr double kMaxKbps = kMaxBandwidthBps / 1e3;
  for (const Row& r : rows) {
    const std::string where = file + ":" + std::to_string(r.line);
    if (!(r.a > 0) || r.a > kMaxMsPerSample) {
      throw Error(where + ": compute_ms_per_sample must be > 0 and <= " + text::format_number(kMaxMsPerSample) +
                  ", got " + text::format_number(r.a));
    }
    if (r.b * 1e3 < kMinBandwidthBps || r.b > kMaxKbps) {
      throw Error(where + ": bandwidth_kbps must be >= 0.001 (1 bit/s) and <= " + text::format_number(kMaxKbps) +
                  ", got " + text::format_number(r.b));
    }
    const auto [it, fresh] = seen.emplace(r.device, r.line);
    if (!fresh) {
      throw Error(where + ": device " + text::show(nlohmann::json(r.device)) + " already has a row (line " +
                  std::to_string(it->second) + ")");
    }
    trace.devices.push_back({r.device, r.line});
    trace.rows.push_back({r.a, r.b});
  }
  return trace;
}

AvailabilityTrace read_availability(const std::filesystem::path& file) {
  const std::string content = util::read_input_as<Error>(file, util::kTraceInput);
  return parse_availability(content, "traces.availability", file.string());
}

CapacityTrace read_capacity(const std::filesystem::path& file) {
  const std::string content = util::read_input_as<Error>(file, util::kTraceInput);
  return parse_capacity(content, "traces.capacity", file.string());
}

}  // namespace edgetrain::input
