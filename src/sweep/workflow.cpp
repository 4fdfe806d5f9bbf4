// See workflow.hpp. The pieces are the module's own: the plan (plan.hpp), the folders' states
// (run_folder.hpp), the jobs (jobs.hpp), the process runner (runner.hpp), the progress display
// (progress.hpp) and sweep.csv (sweep_csv.hpp); this file ties them together.
#include "sweep/workflow.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "report/folder_lock.hpp"
#include "report/output_file.hpp"
#include "report/results_dir.hpp"
#include "sweep/jobs.hpp"
#include "sweep/plan.hpp"
#include "sweep/progress.hpp"
#include "sweep/run_folder.hpp"
#include "sweep/runner.hpp"
#include "sweep/sweep_csv.hpp"
#include "util/printable.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::sweep {
namespace {

namespace fs = std::filesystem;

void create_folder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw report::OutputError("--out " + util::printable(dir.string()) + ": cannot create the folder: " + ec.message());
  }
}

std::string signal_text(int sig) {
  const char* name = sigabbrev_np(sig);
  return "killed by signal " + std::to_string(sig) + (name ? std::string(" (SIG") + name + ")" : std::string());
}

// Runs the pending runs and keeps each one's outcome.
class Sweeper : public TaskListener {
 public:
  Sweeper(const Plan& plan, const std::vector<size_t>& pending, Progress& progress)
      : plan_(plan), pending_(pending), progress_(progress) {}

  void started(size_t) override { progress_.started(); }

  void ended(size_t task, const TaskEnd& end) override {
    const PlannedRun& run = plan_.runs[pending_[task]];
    const FolderState state = inspect_run(plan_.out / run.folder, run.hash);
    const bool ok = state.ours && final_status(state.status);
    std::string error;
    if (!ok) {
      error = end.signal ? signal_text(end.signal) : last_error_line(plan_.out / "logs" / (run.id + ".log"));
      if (error.empty()) error = "exit status " + std::to_string(end.exit_status) + ", no results";
    }
    errors_[run.hash] = error;
    std::string line = run.id + " " + (state.ours ? state.status : "failed");
    if (!ok) line += ": " + (state.ours && !state.reason.empty() ? state.reason : error);
    line += "  (" + (run.label.empty() ? "" : run.label + ": ") + describe(run.overrides) + ")  " +
            Progress::duration_text(end.wall_s);
    progress_.ended(!ok, end.wall_s, line);
  }

  void tick(const std::vector<double>& running_s) override { progress_.tick(running_s); }

  // The error line of a run this sweep started and that left no results of its own.
  std::optional<std::string> error(const std::string& hash) const {
    const auto it = errors_.find(hash);
    return it == errors_.end() ? std::nullopt : std::optional(it->second);
  }

 private:
  const Plan& plan_;
  const std::vector<size_t>& pending_;
  Progress& progress_;
  std::map<std::string, std::string> errors_;
};

// Runs the pending runs here, `o.jobs` at a time, then writes sweep.csv (`out`: the output folder
// as the user named it) and returns the exit status.
int run_pending(const Plan& plan, const std::vector<size_t>& pending, const SweepOptions& o, const fs::path& out) {
  const std::vector<size_t> distinct = plan.distinct();
  std::vector<Task> tasks;
  for (size_t i : pending)
    tasks.push_back({run_argv(plan, plan.runs[i], o), plan.out / "logs" / (plan.runs[i].id + ".log")});
  const size_t earlier = distinct.size() - pending.size();
  std::cout << "sweep: " << plan.runs.size() << " runs";
  if (distinct.size() != plan.runs.size()) std::cout << " (" << distinct.size() << " distinct scenarios)";
  std::cout << ", " << earlier << " finished earlier, " << pending.size() << " to run, " << o.jobs << " at a time\n"
            << std::flush;
  Progress progress(std::cout, ::isatty(STDOUT_FILENO) == 1, distinct.size(), earlier, o.jobs);
  Sweeper sweeper(plan, pending, progress);
  const bool all_ran = run_tasks(tasks, o.jobs, util::stop_requested, sweeper);
  progress.close();

  std::vector<RunRow> rows;
  std::set<std::string> unfinished;  // hashes: runs sharing a folder count once
  for (const PlannedRun& run : plan.runs) {
    const FolderState state = inspect_run(plan.out / run.folder, run.hash);
    const std::optional<std::string> error = sweeper.error(run.hash);
    RunRow row;
    if (state.ours) {
      row = {state.status, state.reason, state.summary};
    } else if (error) {
      row = {"failed", *error, nullptr};
    } else {
      row = {"pending", "not run (" + state.reason + ")", nullptr};
    }
    if (!final_status(row.status)) unfinished.insert(run.hash);
    rows.push_back(std::move(row));
  }
  report::write_output(plan.out / "sweep.csv", sweep_csv(plan, rows), (out / "sweep.csv").string());
  std::cout << "sweep: " << distinct.size() - unfinished.size() << " of " << distinct.size() << " finished"
            << (unfinished.empty() ? std::string() : ", " + std::to_string(unfinished.size()) + " not")
            << "\nresults: " << (out / "sweep.csv").string() << "\n";
  if (!all_ran || util::stop_requested()) {
    std::fprintf(stderr, "edgetrain: sweep interrupted (run it again to resume)\n");
    return 130;
  }
  return unfinished.empty() ? 0 : 1;
}

}  // namespace

int run_sweep(const SweepOptions& o) {
  SweepSpec spec = load_sweep(o.file);
  const fs::path out = o.out.empty() ? fs::path("results") / spec.file.stem() : fs::path(o.out);
  const std::string shown = util::printable(out.string());
  if (!o.simgrid_args.empty() && o.check_simgrid_flags) o.check_simgrid_flags(o.simgrid_args);
  // The folder with its symlinks resolved: DIR, DIR/ and a link to DIR are one folder, one lock.
  const Plan plan = make_plan(std::move(spec), report::resolve_results_folder(out, shown));
  const bool emitting = !o.emit_jobs.empty() || !o.emit_slurm.empty();
  if (emitting) check_emitted_fields(plan, o);
  create_folder(plan.out.parent_path());
  // One sweep at a time in a folder (the runs have their own locks too); nothing is written in it
  // before the lock is held.
  const report::FolderLock lock(plan.out, shown);
  create_folder(plan.out / "runs");
  create_folder(plan.out / "logs");
  report::write_output(plan.out / "sweep.json", plan_json(plan).dump(2) + "\n", (out / "sweep.json").string());

  std::vector<size_t> pending;
  for (size_t i : plan.distinct())
    if (!inspect_run(plan.out / plan.runs[i].folder, plan.runs[i].hash).finished) pending.push_back(i);
  if (!emitting) return run_pending(plan, pending, o, out);
  emit_jobs(plan, pending, o);
  return 0;
}

}  // namespace edgetrain::sweep
