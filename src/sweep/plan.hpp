// A sweep's plan: every run of the expansion checked by the scenario loader (as `edgetrain run`
// would check it), identified by the hash of its resolved scenario, with its folder under the
// sweep's output folder. Runs whose scenarios resolve the same (e.g. a key that only matters in a
// mode the run does not use) share one folder: it is run once.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sweep/sweep_file.hpp"
#include "util/input_error.hpp"

namespace edgetrain::sweep {

// Some runs' overrides are invalid: one line per bad run, naming the run and the key.
class PlanError : public std::runtime_error, public util::InputError {
 public:
  explicit PlanError(std::vector<std::string> lines);
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  std::vector<std::string> lines_;
};

struct PlannedRun {
  size_t number = 0;  // 1-based position in the expansion
  Overrides overrides;
  std::string label;  // runs[].label ("" for none)
  std::string hash, id;
  std::string folder;  // relative to the sweep's output folder: runs/<id>
};

struct Plan {
  SweepSpec spec;
  std::filesystem::path out;  // the sweep's output folder, absolute
  std::vector<PlannedRun> runs;
  // Indexes into `runs` of the first run of each distinct folder, in order: the work to do.
  std::vector<size_t> distinct() const;
};

// Loads every run's scenario (base + overrides); throws PlanError listing every bad run.
Plan make_plan(SweepSpec spec, const std::filesystem::path& out);

// sweep.json: {"base", "varied", "grid_keys", "runs": [{"id", "folder", "overrides", "hash", "label"}]}
// ("label" only on labelled runs).
nlohmann::ordered_json plan_json(const Plan& plan);

}  // namespace edgetrain::sweep
