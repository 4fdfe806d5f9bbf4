// A run's results folder, replaced as a whole. Opening it, before anything is simulated, checks
// `--out` (so an unusable folder fails fast; its symlinks resolved, a dangling one to where it
// points), takes its lock (one run per folder at a time), removes the temporary folders that
// killed runs left in the same parent, and creates a fresh temporary folder `.NAME.tmp-PID` beside
// it, marked as edgetrain's by a file inside: nothing without that marker is ever removed. The run writes its files
// there; commit() then swaps it with the previous folder in one rename and removes the previous results. A run that
// fails or is killed before commit() leaves the previous results as they were.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/folder_lock.hpp"

namespace edgetrain::report {

class ResultsDir {
 public:
  // `out` as the user gave it. Throws OutputError (exit status 2) when it cannot be used: a path
  // through a regular file, a folder that cannot be created, an existing folder holding files
  // that edgetrain did not write (by name and type: a folder called metrics.csv is not a result),
  // a folder another run is writing.
  explicit ResultsDir(const std::filesystem::path& out);
  ~ResultsDir();  // without commit(): removes the temporary folder
  ResultsDir(const ResultsDir&) = delete;
  ResultsDir& operator=(const ResultsDir&) = delete;

  // Writes one result file (`name` among result_files()) into the temporary folder; throws
  // OutputError naming the file and the reason.
  void write(const std::string& name, const std::string& content);
  // Moves the temporary folder into place, replacing the previous results.
  void commit();

  // The resolved scenario of the results the folder holds now (its scenario.json, read while the
  // lock is held); empty when there is no such folder or no readable scenario.json in it.
  std::optional<nlohmann::json> previous_scenario() const;

  const std::filesystem::path& folder() const { return folder_; }
  const std::filesystem::path& temporary() const { return tmp_; }

  // The files a run writes; a folder holding anything else is not replaced.
  static const std::vector<std::string>& result_files();

 private:
  std::string shown_;             // --out as given, for messages
  std::filesystem::path folder_;  // absolute, symlinks resolved
  std::filesystem::path tmp_;
  std::unique_ptr<FolderLock> lock_;
  bool created_ = false;  // tmp_ was made by this object (so removing it is ours to do)
  bool committed_ = false;
};

// `out` absolute with its symlinks resolved, a dangling one to where it points (the results go
// there, and there is what is locked: DIR, DIR/ and a symlink to DIR are one folder). Throws
// OutputError naming `shown` for a symlink loop or a root folder.
std::filesystem::path resolve_results_folder(const std::filesystem::path& out, const std::string& shown);

// Removes the temporary folders `.NAME.tmp-PID` and `.NAME.old-PID` in `parent` whose PID is no
// longer running (left by killed runs) and that hold edgetrain's marker file: a folder of the same
// name without it is the user's. Returns how many were removed.
int remove_stale_temporaries(const std::filesystem::path& parent);

}  // namespace edgetrain::report
