// What a run records, and the writers of results/<run>/: metrics.csv (evaluation curve),
// devices.csv (per-device totals), summary.json and scenario.json. Column and key names
// carry their units. Simulation-derived files hold no wall-clock values, so the same
// scenario and seed give byte-identical files; wall time lives only in summary.json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace edgetrain::report {

struct EvalPoint {
  double sim_time_s = 0;
  int64_t round = 0;  // rounds completed when the model was evaluated
  double test_accuracy = 0, test_loss = 0;
  int64_t bytes_up = 0, bytes_down = 0;  // cumulative, all devices
};

struct DeviceRecord {
  std::string device, host;
  double host_speed_flops = 0;
  int64_t steps = 0, samples_trained = 0;
  double compute_s = 0, wait_s = 0, comm_s = 0;
  int64_t bytes_up = 0, bytes_down = 0;
};

struct RunSummary {
  std::string status;         // completed | target_reached | diverged | interrupted | failed
  std::string status_reason;  // one sentence: which stop condition, or what failed
  int64_t rounds = 0;
  double sim_time_s = 0, wall_time_s = 0;
  double final_test_accuracy = 0, final_test_loss = 0, best_test_accuracy = 0;
  std::optional<double> time_to_target_s;
  int64_t bytes_up = 0, bytes_down = 0;
  int64_t model_params = 0;
  uint64_t seed = 0;
  nlohmann::json extra = nlohmann::json::object();  // further keys (model FLOPs, network model...)
};

nlohmann::json summary_json(const RunSummary& summary);
std::string metrics_csv(const std::vector<EvalPoint>& points);
std::string devices_csv(const std::vector<DeviceRecord>& devices);

// Writes the four files into `dir` (created if missing), each atomically.
void write_run_outputs(const std::filesystem::path& dir, const nlohmann::json& resolved_scenario,
                       const RunSummary& summary, const std::vector<EvalPoint>& points,
                       const std::vector<DeviceRecord>& devices);

}  // namespace edgetrain::report
