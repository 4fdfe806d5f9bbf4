// See run_record.hpp.
#include "report/run_record.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include "report/csv.hpp"
#include "report/population_csv.hpp"
#include "report/results_dir.hpp"
#include "report/round_times.hpp"

namespace edgetrain::report {
namespace {

// What dense fp32 updates would have put on the uplink over what was sent (1 before any upload).
double compression_ratio(int64_t uncompressed_bytes, int64_t sent_bytes) {
  return sent_bytes > 0 ? static_cast<double>(uncompressed_bytes) / static_cast<double>(sent_bytes) : 1.0;
}

}  // namespace

nlohmann::json summary_json(const RunSummary& s) {
  nlohmann::json j = nlohmann::json::object();
  j["status"] = s.status;
  j["status_reason"] = s.status_reason;
  j["rounds"] = s.rounds;
  j["sim_time_s"] = s.sim_time_s;
  j["wall_time_s"] = s.wall_time_s;
  j["final_test_accuracy"] = s.final_test_accuracy;
  j["final_test_loss"] = s.final_test_loss;
  j["best_test_accuracy"] = s.best_test_accuracy;
  j["time_to_target_s"] = s.time_to_target_s ? nlohmann::json(*s.time_to_target_s) : nlohmann::json(nullptr);
  j["bytes_up"] = s.bytes_up;
  j["bytes_down"] = s.bytes_down;
  j["bytes_up_uncompressed"] = s.bytes_up_uncompressed;
  j["compression_ratio"] = compression_ratio(s.bytes_up_uncompressed, s.bytes_up);
  j["cnc_ratio"] = s.cnc_ratio ? nlohmann::json(*s.cnc_ratio) : nlohmann::json(nullptr);
  j["model_params"] = s.model_params;
  j["samples_trained"] = s.samples_trained;
  auto optional = [](const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  j["samples_arrived"] = optional(s.samples_arrived);
  j["samples_dropped"] = optional(s.samples_dropped);
  j["buffer_peak_samples"] = optional(s.buffer_peak_samples);
  j["seed"] = s.seed;
  for (const auto& [key, value] : s.extra.items()) j[key] = value;
  return j;
}

std::string metrics_csv(const std::vector<EvalPoint>& points) {
  // Runs of peers add the spread of the devices' models (a column only they have).
  const bool spread = std::any_of(points.begin(), points.end(), [](const EvalPoint& p) { return p.model_spread; });
  std::vector<std::string> columns{"sim_time_s", "round",      "test_accuracy",    "test_loss",
                                   "bytes_up",   "bytes_down", "devices_energy_j", "energy_j"};
  if (spread) columns.emplace_back("model_spread");
  // Runs with differential privacy add the epsilon spent (privacy.dp).
  const bool epsilon = std::any_of(points.begin(), points.end(), [](const EvalPoint& p) { return p.epsilon; });
  if (epsilon) columns.emplace_back("epsilon");
  // Runs under a backdoor attack add its success rate.
  const bool attack = std::any_of(points.begin(), points.end(), [](const EvalPoint& p) { return p.attack_success; });
  if (attack) columns.emplace_back("attack_success");
  // Personalisation adds the devices' personalised accuracy (empty before any device trained).
  const bool personal = std::any_of(points.begin(), points.end(), [](const EvalPoint& p) { return p.personal_devices; });
  if (personal)
    for (const char* c : {"personal_accuracy_mean", "personal_accuracy_p10", "personal_devices"}) columns.emplace_back(c);
  CsvTable t(columns);
  auto optional = [](const std::optional<double>& v) { return v ? format_number(*v) : std::string(); };
  for (const auto& p : points) {
    auto& row = t.row()
                    .add(p.sim_time_s)
                    .add(p.round)
                    .add(p.test_accuracy)
                    .add(p.test_loss)
                    .add(p.bytes_up)
                    .add(p.bytes_down)
                    .add(optional(p.devices_energy_j))
                    .add(optional(p.energy_j));
    if (spread) row.add(p.model_spread.value_or(std::numeric_limits<double>::quiet_NaN()));
    if (epsilon) row.add(optional(p.epsilon));
    if (attack) row.add(optional(p.attack_success));
    if (personal)
      row.add(optional(p.personal_accuracy_mean))
          .add(optional(p.personal_accuracy_p10))
          .add(p.personal_devices ? std::to_string(*p.personal_devices) : std::string());
  }
  return t.str();
}

namespace {

std::string number(double v) { return format_number(v); }
std::string number(int64_t v) { return std::to_string(v); }
std::string optional_number(const std::optional<double>& v) { return v ? format_number(*v) : std::string(); }

// devices.csv, declared once: each column's name (with its unit) and how a device's cell is
// written. A stream column is empty for a device without a stream (nothing arrives there).
struct DeviceColumn {
  const char* name;
  std::function<std::string(const DeviceRecord&)> cell;
};

template <class F>
DeviceColumn stream_column(const char* name, F of) {
  return {name, [of](const DeviceRecord& d) { return d.stream ? number(of(*d.stream, d)) : std::string(); }};
}

const std::vector<DeviceColumn>& device_columns() {
  static const std::vector<DeviceColumn> columns = {
      {"device", [](const DeviceRecord& d) { return d.device; }},
      {"host", [](const DeviceRecord& d) { return d.host; }},
      {"class", [](const DeviceRecord& d) { return d.device_class; }},
      {"host_speed_flops", [](const DeviceRecord& d) { return number(d.host_speed_flops); }},
      {"batch_size", [](const DeviceRecord& d) { return number(d.batch_size); }},
      {"steps", [](const DeviceRecord& d) { return number(d.steps); }},
      {"rounds_selected", [](const DeviceRecord& d) { return number(d.rounds_selected); }},
      {"rounds_aggregated", [](const DeviceRecord& d) { return number(d.rounds_aggregated); }},
      {"partition_samples", [](const DeviceRecord& d) { return number(d.partition_samples); }},
      {"samples_trained", [](const DeviceRecord& d) { return number(d.samples_trained); }},
      {"compute_s", [](const DeviceRecord& d) { return number(d.compute_s); }},
      {"wait_s", [](const DeviceRecord& d) { return number(d.wait_s); }},
      {"data_wait_s", [](const DeviceRecord& d) { return number(d.stream ? d.stream->data_wait_s : 0.0); }},
      {"unselected_s", [](const DeviceRecord& d) { return number(d.unselected_s); }},
      {"comm_s", [](const DeviceRecord& d) { return number(d.comm_s); }},
      {"bound", [](const DeviceRecord& d) { return std::string(device_bound(d)); }},
      {"bytes_up", [](const DeviceRecord& d) { return number(d.bytes_up); }},
      {"bytes_down", [](const DeviceRecord& d) { return number(d.bytes_down); }},
      {"bytes_up_uncompressed", [](const DeviceRecord& d) { return number(d.bytes_up_uncompressed); }},
      {"compression_ratio",
       [](const DeviceRecord& d) { return number(compression_ratio(d.bytes_up_uncompressed, d.bytes_up)); }},
      {"cnc_ratio", [](const DeviceRecord& d) { return optional_number(d.cnc_ratio); }},
      stream_column("stream_rate_samples_per_s",
                    [](const StreamRecord& s, const DeviceRecord&) { return s.rate_samples_per_s; }),
      stream_column("samples_arrived", [](const StreamRecord& s, const DeviceRecord&) { return s.samples_arrived; }),
      stream_column("samples_dropped", [](const StreamRecord& s, const DeviceRecord&) { return s.samples_dropped; }),
      stream_column("buffer_peak_samples",
                    [](const StreamRecord& s, const DeviceRecord&) { return s.buffer_peak_samples; }),
      stream_column("buffer_final_samples",
                    [](const StreamRecord& s, const DeviceRecord&) { return s.buffer_final_samples; }),
      // Mean age over the own-stream samples trained (injected samples have no local age).
      stream_column("sample_age_mean_s",
                    [](const StreamRecord& s, const DeviceRecord& d) {
                      return d.samples_trained > 0 ? s.age_sum_s / static_cast<double>(d.samples_trained) : 0.0;
                    }),
      stream_column("sample_age_max_s", [](const StreamRecord& s, const DeviceRecord&) { return s.sample_age_max_s; }),
      {"samples_injected_sent", [](const DeviceRecord& d) { return number(d.samples_injected_sent); }},
      {"samples_injected_received", [](const DeviceRecord& d) { return number(d.samples_injected_received); }},
      {"stale_drops", [](const DeviceRecord& d) { return number(d.stale_drops); }},
      {"offline_s", [](const DeviceRecord& d) { return number(d.offline_s); }},
      {"restarts", [](const DeviceRecord& d) { return number(d.restarts); }},
      {"failed_pushes", [](const DeviceRecord& d) { return number(d.failed_pushes); }},
      {"late_pushes", [](const DeviceRecord& d) { return number(d.late_pushes); }},
      {"samples_lost_in_faults", [](const DeviceRecord& d) { return number(d.samples_lost_in_faults); }},
      stream_column("samples_lost_offline",
                    [](const StreamRecord& s, const DeviceRecord&) { return s.samples_lost_offline; }),
      {"samples_held_at_end", [](const DeviceRecord& d) { return number(d.samples_held_at_end); }},
      {"model_memory_bytes", [](const DeviceRecord& d) { return number(d.model_memory_bytes); }},
      {"buffer_peak_bytes", [](const DeviceRecord& d) { return number(d.buffer_peak_bytes); }},
      {"energy_j", [](const DeviceRecord& d) { return optional_number(d.energy_j); }},
  };
  return columns;
}

}  // namespace

const char* device_bound(const DeviceRecord& d) {
  const double data = d.stream ? d.stream->data_wait_s : 0.0;
  const double other = d.wait_s - data - std::min(d.unselected_s, std::max(0.0, d.wait_s - data));
  if (d.compute_s <= 0 && d.comm_s <= 0 && data <= 0 && other <= 0) return "none";
  const std::pair<double, const char*> buckets[] = {
      {d.compute_s, "compute"}, {d.comm_s, "communication"}, {data, "data"}, {other, "wait"}};
  const auto* top = &buckets[0];
  for (const auto& b : buckets) top = b.first > top->first ? &b : top;  // ties: the first listed
  return top->second;
}

std::string devices_csv(const std::vector<DeviceRecord>& devices, bool took_part_only) {
  // A row at a time rather than a table of cells: a population's file may hold 100,000 rows.
  const auto& columns = device_columns();
  std::string out;
  for (size_t k = 0; k < columns.size(); ++k) out += (k ? "," : "") + std::string(columns[k].name);
  out += "\n";
  for (const auto& d : devices) {
    if (took_part_only && d.rounds_selected == 0) continue;
    for (size_t k = 0; k < columns.size(); ++k) out += (k ? "," : "") + csv_cell(columns[k].cell(d));
    out += "\n";
  }
  return out;
}

std::string links_csv(const std::vector<LinkRow>& rows, double sim_time_s) {
  CsvTable t({"link", "bandwidth_bps", "latency_s", "sharing", "bytes", "messages", "mean_utilization", "busy_s", "busy_fraction",
              "utilization_when_busy", "energy_j"});
  for (const auto& r : rows) {
    t.row()
        .add(r.link)
        .add(r.bandwidth_bps)
        .add(r.latency_s)
        .add(r.sharing)
        .add(r.bytes)
        .add(r.messages)
        .add(utilization(r, sim_time_s))
        .add(r.busy_s)
        .add(sim_time_s > 0 ? r.busy_s / sim_time_s : 0.0)
        .add(utilization(r, r.busy_s))
        .add(r.energy_j ? format_number(*r.energy_j) : std::string());
  }
  return t.str();
}

double utilization(const LinkRow& r, double over_s) {
  const double capacity = r.bandwidth_bps / 8 * over_s;
  return capacity > 0 ? static_cast<double>(r.bytes) / capacity : 0.0;
}

std::string rounds_csv(const std::vector<RoundRow>& rows) {
  std::vector<std::string> columns{"round",    "applied", "start_s", "end_s", "duration_s", "slowest_device",
                                   "selected", "updates", "missing", "late",  "bytes_up",   "bytes_down"};
  // Runs with differential privacy add the epsilon spent once the round closed.
  const bool dp = std::any_of(rows.begin(), rows.end(), [](const RoundRow& r) { return r.epsilon; });
  if (dp) columns.emplace_back("epsilon");
  // Runs whose deadline is predicted (training.deadline) add each round's.
  const bool predicted = std::any_of(rows.begin(), rows.end(), [](const RoundRow& r) { return r.predicted_deadline; });
  if (predicted) columns.emplace_back("timeout_s");
  // Runs with secure aggregation add each phase's time and bytes, and the phase that failed.
  const bool secure = std::any_of(rows.begin(), rows.end(), [](const RoundRow& r) { return r.secure.has_value(); });
  if (secure) {
    for (const char* phase : kSecurePhases) {
      columns.push_back(std::string("secagg_") + phase + "_s");
      columns.push_back(std::string("secagg_") + phase + "_bytes");
    }
    columns.emplace_back("secagg_failed_phase");
  }
  CsvTable t(columns);
  for (const auto& r : rows) {
    auto& row = t.row()
        .add(r.round)
        .add(r.applied ? 1 : 0)
        .add(r.start_s)
        .add(r.end_s)
        .add(r.end_s - r.start_s)
        .add(r.slowest_device)
        .add(r.selected)
        .add(r.updates)
        .add(r.missing)
        .add(r.late)
        .add(r.bytes_up)
        .add(r.bytes_down);
    if (dp) row.add(r.epsilon ? format_number(*r.epsilon) : std::string());
    if (predicted) row.add(r.timeout_s ? format_number(*r.timeout_s) : std::string());
    if (secure) {
      const SecureRoundRecord none;  // a round that sent no model (empty cells would hide that it ran)
      const SecureRoundRecord& s = r.secure ? *r.secure : none;
      for (size_t p = 0; p < kSecurePhases.size(); ++p) row.add(s.seconds[p]).add(s.bytes[p]);
      row.add(s.failed_phase);
    }
  }
  return t.str();
}

std::string staleness_csv(const std::vector<StalenessRow>& rows) {
  CsvTable t({"sim_time_s", "device", "staleness"});
  for (const auto& r : rows) t.row().add(r.sim_time_s).add(r.device).add(r.staleness);
  return t.str();
}

nlohmann::json staleness_summary(const std::vector<StalenessRow>& rows) {
  nlohmann::json j;
  std::vector<int64_t> d;
  for (const auto& r : rows) d.push_back(r.staleness);
  std::sort(d.begin(), d.end());
  if (d.empty()) {
    for (const char* k : {"staleness_mean", "staleness_p50", "staleness_p95", "staleness_max"}) j[k] = nullptr;
    return j;
  }
  double sum = 0;
  for (int64_t v : d) sum += static_cast<double>(v);
  j["staleness_mean"] = sum / static_cast<double>(d.size());
  j["staleness_p50"] = nearest_rank(d, 0.5);
  j["staleness_p95"] = nearest_rank(d, 0.95);
  j["staleness_max"] = d.back();
  return j;
}

void write_run_outputs(ResultsDir& dir, const RunOutputs& o) {
  dir.write("scenario.json", o.resolved_scenario.dump(2) + "\n");
  dir.write("metrics.csv", metrics_csv(o.points));
  dir.write("devices.csv", devices_csv(o.devices, /*took_part_only=*/o.population));
  if (o.population) dir.write("population.csv", population_csv(o.devices));
  // buffers.csv and buffers_fleet.csv were streamed there during the run (buffer_streams.hpp).
  dir.write("links.csv", links_csv(o.links, o.summary.sim_time_s));
  dir.write("staleness.csv", staleness_csv(o.staleness));  // header only unless async
  dir.write("rounds.csv", rounds_csv(o.rounds));           // header only unless sync rounds
  // Last, so that a summary.json present means the other files are complete.
  dir.write("summary.json", summary_json(o.summary).dump(2) + "\n");
}

}  // namespace edgetrain::report
