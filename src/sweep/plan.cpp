// See plan.hpp.
#include "sweep/plan.hpp"

#include <set>

#include "scenario/load.hpp"
#include "sweep/hash.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::sweep {
namespace {

std::string join_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& l : lines) text += (text.empty() ? "" : "\n") + l;
  return text;
}

}  // namespace

PlanError::PlanError(std::vector<std::string> lines)
    : std::runtime_error(join_lines(lines)), lines_(std::move(lines)) {}

std::vector<size_t> Plan::distinct() const {
  std::vector<size_t> out;
  std::set<std::string> seen;
  for (size_t i = 0; i < runs.size(); ++i)
    if (seen.insert(runs[i].hash).second) out.push_back(i);
  return out;
}

Plan make_plan(SweepSpec spec, const std::filesystem::path& out) {
  Plan plan;
  plan.out = std::filesystem::absolute(out).lexically_normal();
  std::vector<std::string> errors;
  for (size_t i = 0; i < spec.runs.size(); ++i) {
    util::throw_if_stopped("planning the sweep (" + std::to_string(i) + " of " + std::to_string(spec.runs.size()) +
                           " runs checked)");
    PlannedRun run;
    run.number = i + 1;
    run.overrides = spec.runs[i];
    run.label = i < spec.labels.size() ? spec.labels[i] : std::string();
    std::vector<std::string> sets;
    for (const auto& o : run.overrides) sets.push_back(set_text(o));
    try {
      run.hash = scenario_hash(scenario::load_scenario(spec.base, sets).resolved);
    } catch (const std::exception& e) {
      if (!dynamic_cast<const util::InputError*>(&e)) throw;
      errors.push_back(spec.file.filename().string() + ": run " + std::to_string(run.number) + " of " +
                       std::to_string(spec.runs.size()) + " (" + describe(run.overrides) + "): " + e.what());
      continue;
    }
    run.id = run_id(run.hash);
    run.folder = "runs/" + run.id;
    plan.runs.push_back(std::move(run));
  }
  if (!errors.empty()) throw PlanError(std::move(errors));
  plan.spec = std::move(spec);
  return plan;
}

nlohmann::ordered_json plan_json(const Plan& plan) {
  nlohmann::ordered_json j;
  j["base"] = plan.spec.base.string();
  j["varied"] = plan.spec.varied;
  j["grid_keys"] = plan.spec.grid_keys;
  j["runs"] = nlohmann::ordered_json::array();
  for (const auto& r : plan.runs) {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    for (const auto& [key, value] : r.overrides) o[key] = nlohmann::ordered_json::parse(value.dump());
    nlohmann::ordered_json run = {{"id", r.id}, {"folder", r.folder}, {"overrides", o}, {"hash", r.hash}};
    if (!r.label.empty()) run["label"] = r.label;
    j["runs"].push_back(std::move(run));
  }
  return j;
}

}  // namespace edgetrain::sweep
