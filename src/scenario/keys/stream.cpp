// See stream.hpp.
#include "scenario/keys/stream.hpp"

#include "input/text.hpp"
#include "scenario/error.hpp"
#include "scenario/rows.hpp"

namespace edgetrain::scenario::keys {
namespace {

using nlohmann::json;

// A resolved rate: its object form, or a preset's name (kept, and its object form read); null
// when the trace gives the rate.
RateSpec rate_spec(const json& r) {
  RateSpec rate;
  if (r.is_null()) return rate;  // the trace gives the rate
  const json* d = &r;
  if (r.is_string()) {
    rate.preset = r.get<std::string>();
    const RatePreset* p = find_rate_preset(rate.preset);
    if (!p) throw ScenarioError("stream.rate: internal error: unknown preset " + input::text::show(r));
    d = &p->resolved;
  }
  rate.dist = d->at("dist").get<std::string>();
  if (d->contains("value")) rate.value = d->at("value").get<double>();
  if (d->contains("mean")) rate.mean = d->at("mean").get<double>();
  if (d->contains("spread")) rate.spread = d->at("spread").get<double>();
  if (d->contains("std")) rate.std = d->at("std").get<double>();
  if (d->contains("values")) rate.values = d->at("values").get<std::vector<double>>();
  return rate;
}

// The stream rows, each filling its field of a StreamSpec.
std::vector<KeySpec> stream_spec_rows() {
  const Condition bounded = when("stream.buffer.policy", {"drop-oldest", "drop-newest"});
  return {
      section_key("stream",
                  "Data streams: samples arrive at each device over simulated time into a buffer, and "
                  "training takes them from there. Each device can override these keys (`devices[].stream`).")
          .null_default("no streams: static partitions, data always available"),
      path_key("stream.trace", PathKind::File,
               "CSV file of `time_s,rate` rows (header allowed): the rate over time, piecewise constant, "
               "the last rate holding after the last time. Takes precedence over `stream.rate`.")
          .takes_precedence_over("rate")
          .null_default("no trace")
          .fills(&StreamSpec::trace),
      rate_key("stream.rate",
               "Arrival rate in samples per simulated second, drawn once per device (seeded): a number > 0 "
               "(constant), a preset name, or an object: `{\"dist\": \"constant\", \"value\": v}` (v > 0); "
               "`{\"dist\": \"uniform\", \"mean\": m, \"spread\": s}`, uniform on [m - s, m + s] "
               "(m > 0, 0 <= s < m); `{\"dist\": \"normal\", \"mean\": m, \"std\": s}` (m > 0, s >= 0); "
               "`{\"dist\": \"list\", \"values\": [...]}`, numbers > 0, device i gets values[i mod n]. Every rate "
               "and parameter is at most 1e9 samples/s (sample counts over a run stay within int64), and a draw is "
               "clipped to [1, 1e9].")
          .or_null("none: `stream.trace` gives the rate")
          .required_unless("trace")
          .fills_by(rate_spec, &StreamSpec::rate),
      enum_key("stream.arrivals", {"fluid", "poisson"},
               "Arrival process: fluid = samples arrive evenly at exactly the rate; poisson = a (seeded) "
               "Poisson process with that rate.")
          .def("fluid")
          .fills(&StreamSpec::arrivals),
      enum_key("stream.buffer.policy", {"persistence", "truncation", "drop-oldest", "drop-newest"},
               "What the device's buffer keeps: persistence = every sample until trained (unbounded); "
               "truncation = at each step only the newest `stream.buffer.window_s` worth; drop-oldest = at "
               "most `capacity_samples`, evicting the oldest; drop-newest = at most `capacity_samples`, "
               "refusing arrivals that do not fit.")
          .def("persistence")
          .fills(&StreamSpec::buffer, &BufferSpec::policy),
      integer_key("stream.buffer.capacity_samples", "Buffer bound in samples (drop policies).")
          .only_when(bounded)
          .at_least(1)
          .limit(1e10, "sample counts times sample_bytes (at most 64 MiB) stay within int64")
          .required_if(bounded)
          .fills(&StreamSpec::buffer, &BufferSpec::capacity_samples),
      quantity_key("stream.buffer.window_s", Unit::Seconds,
                   "Truncation window: the buffer keeps the newest ceil(rate x window_s) samples, at least one "
                   "batch.")
          .above(0)
          .def(1.0)
          .fills(&StreamSpec::buffer, &BufferSpec::window_s),
      quantity_key("stream.sample_bytes", Unit::Bytes, "Size of one streamed sample.")
          .at_least(1)
          .limit(67108864.0, "the largest sample dataset.shape allows, 2^24 fp32 values")
          .whole_number()
          .null_default("the dataset's sample size")
          .fills(&StreamSpec::sample_bytes),
      enum_key("stream.while_off", {"buffer", "lose"},
               "What arrives while the device is off (`faults.devices`): buffer = kept as usual; lose = lost, "
               "counted in samples_lost_offline.")
          .def("buffer")
          .fills(&StreamSpec::while_off),
  };
}

}  // namespace

std::vector<KeySpec> stream_rows() {
  std::vector<KeySpec> rows = stream_spec_rows();
  // The typed scenario has no global stream: each device's (device_stream_rows) holds the
  // settings it inherits from here.
  for (KeySpec& r : rows) r.fill = {};
  return rows;
}

std::vector<KeySpec> device_stream_rows() {
  std::vector<KeySpec> rows = per_entry_overrides(
      stream_spec_rows(), "stream", "devices[]",
      "This device's stream settings: each key given here overrides the global `stream` one for this device, "
      "the others are inherited. Without a global `stream`, only devices with their own `stream` stream (and "
      "need their own `rate` or `trace`). An own `rate` without an own `trace` drops an inherited `trace`.",
      "this device has no stream");
  place_rows(rows, place(&DeviceSpec::stream));
  rows.front().fills(&DeviceSpec::stream);  // the section row: on or off for this device
  return rows;
}

}  // namespace edgetrain::scenario::keys
