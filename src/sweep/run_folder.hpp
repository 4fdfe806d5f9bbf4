// What a run's folder holds, for resuming: a run is finished when its summary.json has a final
// status (completed, target_reached, diverged) and its scenario.json is the run's resolved
// scenario (same hash). Anything else (no folder, an interrupted or failed run, the results of
// another scenario, unreadable files) means it runs again from the start.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace edgetrain::sweep {

struct FolderState {
  bool finished = false;
  bool ours = false;       // scenario.json matches the hash: the summary is this run's
  std::string status;      // summary.json's status ("" without a readable summary)
  std::string reason;      // summary.json's status_reason, or why the folder does not count
  nlohmann::json summary;  // summary.json when `ours`, else null
};

FolderState inspect_run(const std::filesystem::path& folder, const std::string& hash);

// Whether a summary status is final (running again would give the same).
bool final_status(const std::string& status);

}  // namespace edgetrain::sweep
