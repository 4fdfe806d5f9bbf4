// See sweep_csv.hpp.
#include "sweep/sweep_csv.hpp"

#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "report/csv.hpp"

namespace edgetrain::sweep {
namespace {

// Where summary.json holds a column's figure: the top-level key of the same name, or a nested one.
nlohmann::json::json_pointer figure_at(const std::string& column) {
  static const std::vector<std::pair<std::string, std::string>> nested = {
      {"round_mean_s", "/round_s/mean"},
      {"round_median_s", "/round_s/median"},
      {"round_p95_s", "/round_s/p95"},
      {"round_max_s", "/round_s/max"},
      {"bytes_device_to_site", "/bytes_by_level/device_to_site"},
      {"bytes_site_to_cloud", "/bytes_by_level/site_to_cloud"},
      {"bytes_cloud_to_site", "/bytes_by_level/cloud_to_site"},
      {"bytes_site_to_device", "/bytes_by_level/site_to_device"}};
  for (const auto& [name, at] : nested)
    if (name == column) return nlohmann::json::json_pointer(at);
  return nlohmann::json::json_pointer("/" + column);
}

}  // namespace

const std::vector<std::string>& summary_columns() {
  static const std::vector<std::string> columns = {"sim_time_s",
                                                   "time_to_target_s",
                                                   "rounds",
                                                   "round_mean_s",
                                                   "round_median_s",
                                                   "round_p95_s",
                                                   "round_max_s",
                                                   "final_test_accuracy",
                                                   "best_test_accuracy",
                                                   "final_test_loss",
                                                   "bytes_up",
                                                   "bytes_down",
                                                   "bytes_to_server",
                                                   "bytes_from_server",
                                                   "bytes_device_to_site",
                                                   "bytes_site_to_cloud",
                                                   "bytes_cloud_to_site",
                                                   "bytes_site_to_device",
                                                   "bytes_up_uncompressed",
                                                   "compression_ratio",
                                                   "cnc_ratio",
                                                   "samples_trained",
                                                   "samples_arrived",
                                                   "samples_dropped",
                                                   "buffer_peak_samples",
                                                   "samples_injected",
                                                   "bytes_injected",
                                                   "staleness_mean",
                                                   "staleness_p50",
                                                   "staleness_p95",
                                                   "staleness_max",
                                                   "stale_drops",
                                                   "failed_pushes",
                                                   "late_pushes",
                                                   "missing_updates",
                                                   "empty_rounds",
                                                   "offline_s",
                                                   "restarts",
                                                   "samples_lost_in_faults",
                                                   "samples_lost_offline",
                                                   "energy_j",
                                                   "model_params",
                                                   "model_step_flops_per_sample",
                                                   "devices",
                                                   "wall_time_s"};
  return columns;
}

std::string spreadsheet_text(const std::string& text) {
  if (text.empty()) return text;
  bool formula = std::string_view("=+@'\t\r").find(text[0]) != std::string_view::npos;
  if (text[0] == '-') {
    char* end = nullptr;
    std::strtod(text.c_str(), &end);
    formula = end != text.c_str() + text.size();
  }
  return formula ? "'" + text : text;
}

std::string sweep_csv(const Plan& plan, const std::vector<RunRow>& rows) {
  if (rows.size() != plan.runs.size()) throw std::logic_error("sweep_csv: one row per run expected");
  std::vector<std::string> header;
  for (const auto& key : plan.spec.varied) header.push_back(spreadsheet_text(key));
  const bool labelled = plan.spec.labelled();
  if (labelled) header.push_back("label");
  header.push_back("status");
  header.push_back("status_reason");
  for (const auto& c : summary_columns()) header.push_back(c);
  header.push_back("folder");
  report::CsvTable table(header);
  for (size_t i = 0; i < rows.size(); ++i) {
    auto& row = table.row();
    for (const auto& key : plan.spec.varied) {
      std::string cell;
      for (const auto& [k, value] : plan.runs[i].overrides)
        if (k == key) cell = cell_text(value);
      row.add(spreadsheet_text(cell));
    }
    if (labelled) row.add(spreadsheet_text(plan.runs[i].label));
    row.add(spreadsheet_text(rows[i].status)).add(spreadsheet_text(rows[i].status_reason));
    for (const auto& c : summary_columns()) {
      const nlohmann::json& s = rows[i].summary;
      const nlohmann::json::json_pointer at = figure_at(c);
      const nlohmann::json* v = s.is_object() && s.contains(at) ? &s.at(at) : nullptr;
      if (!v || !v->is_number()) {
        row.add(std::string());
      } else if (v->is_number_integer()) {
        row.add(v->dump());
      } else {
        row.add(v->get<double>());
      }
    }
    row.add(plan.runs[i].folder);
  }
  return table.str();
}

}  // namespace edgetrain::sweep
