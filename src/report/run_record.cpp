// See run_record.hpp.
#include "report/run_record.hpp"

#include <algorithm>
#include <cmath>

#include "report/csv.hpp"
#include "report/results_dir.hpp"

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
  CsvTable t({"sim_time_s", "round", "test_accuracy", "test_loss", "bytes_up", "bytes_down"});
  for (const auto& p : points) {
    t.row().add(p.sim_time_s).add(p.round).add(p.test_accuracy).add(p.test_loss).add(p.bytes_up).add(p.bytes_down);
  }
  return t.str();
}

std::string devices_csv(const std::vector<DeviceRecord>& devices) {
  CsvTable t({"device",
              "host",
              "host_speed_flops",
              "batch_size",
              "steps",
              "samples_trained",
              "compute_s",
              "wait_s",
              "data_wait_s",
              "comm_s",
              "bytes_up",
              "bytes_down",
              "bytes_up_uncompressed",
              "compression_ratio",
              "cnc_ratio",
              "stream_rate_samples_per_s",
              "samples_arrived",
              "samples_dropped",
              "buffer_peak_samples",
              "buffer_final_samples",
              "sample_age_mean_s",
              "sample_age_max_s",
              "samples_injected_sent",
              "samples_injected_received",
              "stale_drops",
              "offline_s",
              "restarts",
              "failed_pushes",
              "late_pushes",
              "samples_lost_in_faults",
              "samples_lost_offline",
              "samples_held_at_end",
              "model_memory_bytes",
              "buffer_peak_bytes"});
  for (const auto& d : devices) {
    auto& row =
        t.row()
            .add(d.device)
            .add(d.host)
            .add(d.host_speed_flops)
            .add(d.batch_size)
            .add(d.steps)
            .add(d.samples_trained)
            .add(d.compute_s)
            .add(d.wait_s)
            .add(d.stream ? d.stream->data_wait_s : 0.0)
            .add(d.comm_s)
            .add(d.bytes_up)
            .add(d.bytes_down)
            .add(d.bytes_up_uncompressed)
            .add(compression_ratio(d.bytes_up_uncompressed, d.bytes_up));
    row.add(d.cnc_ratio ? report::format_number(*d.cnc_ratio) : std::string());
    if (d.stream) {
      const StreamRecord& s = *d.stream;
      // Mean age over the own-stream samples trained (injected samples have no local age).
      const double mean_age = d.samples_trained > 0 ? s.age_sum_s / static_cast<double>(d.samples_trained) : 0.0;
      row.add(s.rate_samples_per_s)
          .add(s.samples_arrived)
          .add(s.samples_dropped)
          .add(s.buffer_peak_samples)
          .add(s.buffer_final_samples)
          .add(mean_age)
          .add(s.sample_age_max_s);
    } else {
      for (int i = 0; i < 7; ++i) row.add(std::string());  // no stream: nothing arrives
    }
    row.add(d.samples_injected_sent).add(d.samples_injected_received).add(d.stale_drops);
    row.add(d.offline_s).add(d.restarts).add(d.failed_pushes).add(d.late_pushes).add(d.samples_lost_in_faults);
    row.add(d.stream ? std::to_string(d.stream->samples_lost_offline) : std::string());
    row.add(d.samples_held_at_end);
    row.add(d.model_memory_bytes).add(d.buffer_peak_bytes);
  }
  return t.str();
}

std::string buffers_csv(const std::vector<BufferPoint>& rows) {
  CsvTable t({"sim_time_s", "device", "buffered_samples", "buffered_bytes", "arrived", "taken", "dropped"});
  for (const auto& p : rows) {
    t.row()
        .add(p.sim_time_s)
        .add(p.device)
        .add(p.buffered_samples)
        .add(p.buffered_bytes)
        .add(p.arrived)
        .add(p.taken)
        .add(p.dropped);
  }
  return t.str();
}

std::string links_csv(const std::vector<LinkRow>& rows, double sim_time_s) {
  CsvTable t({"link", "bandwidth_bps", "latency_s", "bytes", "messages", "mean_utilization"});
  for (const auto& r : rows) {
    const double capacity = r.bandwidth_bps / 8 * sim_time_s;
    t.row()
        .add(r.link)
        .add(r.bandwidth_bps)
        .add(r.latency_s)
        .add(r.bytes)
        .add(r.messages)
        .add(capacity > 0 ? static_cast<double>(r.bytes) / capacity : 0.0);
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
  auto rank = [&](double p) {  // nearest rank: the smallest value with at least p of the data at or below it
    const auto i = static_cast<size_t>(std::ceil(p * static_cast<double>(d.size())));
    return d[std::max<size_t>(i, 1) - 1];
  };
  if (d.empty()) {
    for (const char* k : {"staleness_mean", "staleness_p50", "staleness_p95", "staleness_max"}) j[k] = nullptr;
    return j;
  }
  double sum = 0;
  for (int64_t v : d) sum += static_cast<double>(v);
  j["staleness_mean"] = sum / static_cast<double>(d.size());
  j["staleness_p50"] = rank(0.5);
  j["staleness_p95"] = rank(0.95);
  j["staleness_max"] = d.back();
  return j;
}

void BufferTimeline::record(size_t device, const BufferPoint& point) {
  const bool seen = device < last_time_.size() && last_time_[device] >= 0;
  if (seen && point.sim_time_s - last_time_[device] < every_s_) return;
  finish(device, point);
}

void BufferTimeline::finish(size_t device, const BufferPoint& point) {
  if (last_time_.size() <= device) last_time_.resize(device + 1, -1.0);
  last_time_[device] = point.sim_time_s;
  rows_.push_back(point);
}

void write_run_outputs(ResultsDir& dir, const nlohmann::json& resolved_scenario, const RunSummary& summary,
                       const std::vector<EvalPoint>& points, const std::vector<DeviceRecord>& devices,
                       const std::vector<BufferPoint>& buffers, const std::vector<LinkRow>& links,
                       const std::vector<StalenessRow>& staleness) {
  dir.write("scenario.json", resolved_scenario.dump(2) + "\n");
  dir.write("metrics.csv", metrics_csv(points));
  dir.write("devices.csv", devices_csv(devices));
  dir.write("buffers.csv", buffers_csv(buffers));
  dir.write("links.csv", links_csv(links, summary.sim_time_s));
  dir.write("staleness.csv", staleness_csv(staleness));  // header only unless async
  // Last, so that a summary.json present means the other files are complete.
  dir.write("summary.json", summary_json(summary).dump(2) + "\n");
}

}  // namespace edgetrain::report
