// See run_record.hpp.
#include "report/run_record.hpp"

#include "report/atomic_file.hpp"
#include "report/csv.hpp"

namespace edgetrain::report {

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
  j["model_params"] = s.model_params;
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
  CsvTable t({"device", "host", "host_speed_flops", "steps", "samples_trained", "compute_s", "wait_s", "comm_s",
              "bytes_up", "bytes_down"});
  for (const auto& d : devices) {
    t.row()
        .add(d.device)
        .add(d.host)
        .add(d.host_speed_flops)
        .add(d.steps)
        .add(d.samples_trained)
        .add(d.compute_s)
        .add(d.wait_s)
        .add(d.comm_s)
        .add(d.bytes_up)
        .add(d.bytes_down);
  }
  return t.str();
}

void write_run_outputs(const std::filesystem::path& dir, const nlohmann::json& resolved_scenario,
                       const RunSummary& summary, const std::vector<EvalPoint>& points,
                       const std::vector<DeviceRecord>& devices) {
  write_file_atomically(dir / "scenario.json", resolved_scenario.dump(2) + "\n");
  write_file_atomically(dir / "metrics.csv", metrics_csv(points));
  write_file_atomically(dir / "devices.csv", devices_csv(devices));
  // Last, so a summary.json present means the other files are complete.
  write_file_atomically(dir / "summary.json", summary_json(summary).dump(2) + "\n");
}

}  // namespace edgetrain::report
