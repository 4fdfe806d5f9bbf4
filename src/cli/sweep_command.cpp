// See sweep_command.hpp. The work is in src/sweep; this file reads the options, and ties the plan,
// the folders' states, the process runner, the progress display and the writers together.
#include "cli/sweep_command.hpp"

#include <unistd.h>

#include <boost/program_options.hpp>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "report/folder_lock.hpp"
#include "report/output_file.hpp"
#include "report/results_dir.hpp"
#include "sim/core/simgrid_flags.hpp"
#include "sim/core/stop_signal.hpp"
#include "sweep/emit.hpp"
#include "sweep/plan.hpp"
#include "sweep/progress.hpp"
#include "sweep/run_folder.hpp"
#include "sweep/runner.hpp"
#include "sweep/sweep_csv.hpp"
#include "util/printable.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::cli {
namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;
using namespace edgetrain::sweep;

constexpr const char* kUsage =
    "usage: edgetrain sweep SWEEP.json [--jobs N] [--out DIR] [--threads T] [--emit-jobs FILE] [--emit-slurm FILE]\n"
    "SimGrid's own flags (--cfg=..., --log=...) are passed on to every run.\n";

struct Options {
  std::string file, out, emit_jobs, emit_slurm;
  std::vector<std::string> simgrid_args;  // --cfg=... and --log=..., passed on to every run
  size_t jobs = 1, threads = 1;
  bool help = false;
};

po::options_description visible_options() {
  po::options_description o("options");
  o.add_options()("help,h", "this help")("jobs", po::value<std::string>(),
                                         "runs at a time (default: the number of cores)")(
      "out,o", po::value<std::string>(), "output folder (default: results/<sweep file name without .json>)")(
      "threads", po::value<std::string>(), "training threads of each run (default: max(1, cores / jobs))")(
      "emit-jobs", po::value<std::string>(),
      "write one `edgetrain run` command line per pending run to FILE (- for stdout), run nothing")(
      "emit-slurm", po::value<std::string>(),
      "write a SLURM job-array script running the pending runs to FILE (its lines beside it), run nothing");
  return o;
}

size_t parse_count(const po::variables_map& vm, const std::string& name, size_t fallback) {
  if (!vm.count(name)) return fallback;
  const std::string text = vm[name].as<std::string>();
  size_t used = 0;
  long value = 0;
  try {
    value = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || value < 1 || value > 256) {
    throw po::error("--" + name + ": expected a whole number from 1 to 256, got \"" + util::printable(text) + "\"");
  }
  return static_cast<size_t>(value);
}

Options parse(const std::vector<std::string>& words) {
  Options o;
  std::vector<std::string> args;
  for (const auto& w : words)
    (w.rfind("--cfg=", 0) == 0 || w.rfind("--log=", 0) == 0 ? o.simgrid_args : args).push_back(w);
  po::options_description all;
  all.add(visible_options()).add_options()("sweep", po::value<std::string>());
  po::positional_options_description positional;
  positional.add("sweep", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
  po::notify(vm);
  o.help = vm.count("help") > 0;
  if (o.help) return o;
  if (!vm.count("sweep")) throw po::error("missing SWEEP.json");
  o.file = vm["sweep"].as<std::string>();
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  o.jobs = parse_count(vm, "jobs", cores);
  o.threads = parse_count(vm, "threads", std::max<size_t>(1, cores / o.jobs));
  if (vm.count("out")) o.out = vm["out"].as<std::string>();
  if (vm.count("emit-jobs")) o.emit_jobs = vm["emit-jobs"].as<std::string>();
  if (vm.count("emit-slurm")) o.emit_slurm = vm["emit-slurm"].as<std::string>();
  return o;
}

void create_folder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw report::OutputError("--out " + util::printable(dir.string()) + ": cannot create the folder: " + ec.message());
  }
}

// The command line of one run: this very binary, absolute paths, the overrides as --set, the
// SimGrid flags given to the sweep.
std::vector<std::string> run_argv(const Plan& plan, const PlannedRun& run, const Options& o) {
  std::vector<std::string> argv = {fs::read_symlink("/proc/self/exe").string(), "run", plan.spec.base.string()};
  for (const Override& set : run.overrides) {
    argv.push_back("--set");
    argv.push_back(set_text(set));
  }
  for (const std::string& a : {std::string("--out"), (plan.out / run.folder).string(), std::string("--quiet"),
                               std::string("--threads"), std::to_string(o.threads)}) {
    argv.push_back(a);
  }
  // Before --threads: the SLURM script replaces the line's last "--threads N".
  argv.insert(argv.end() - 2, o.simgrid_args.begin(), o.simgrid_args.end());
  return argv;
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
    line += "  (" + describe(run.overrides) + ")  " + Progress::duration_text(end.wall_s);
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

// Every path and name an emitted script would carry, checked before anything is written: one line
// naming the first field that holds a control character (each line of a script is one command).
void check_emitted_fields(const Plan& plan, const Options& o) {
  check_script_field("the edgetrain binary", fs::read_symlink("/proc/self/exe").string());
  check_script_field("the sweep file", plan.spec.file.string());
  check_script_field("base", plan.spec.base.string());
  check_script_field("--out", plan.out.string());
  check_script_field("--emit-jobs", o.emit_jobs);
  check_script_field("--emit-slurm", o.emit_slurm);
  if (!o.emit_slurm.empty()) check_slurm_log_dir(plan.out / "logs");
  for (const std::string& flag : o.simgrid_args) check_script_field("a SimGrid flag", flag);
  for (const PlannedRun& run : plan.runs) {
    check_script_field("run id", run.id);
    for (const Override& set : run.overrides) check_script_field("override " + set.first, set_text(set));
  }
}

// --emit-jobs FILE (or - for stdout, then the messages go to stderr) and --emit-slurm FILE.
int emit(const Plan& plan, const std::vector<size_t>& pending, const Options& o) {
  const std::vector<fs::path> inputs = {plan.spec.file, plan.spec.base};
  std::string lines;
  for (size_t i : pending) lines += command_line(run_argv(plan, plan.runs[i], o)) + "\n";
  const bool to_stdout = o.emit_jobs == "-";
  std::ostream& say = to_stdout ? std::cerr : std::cout;
  fs::path jobs_file = o.emit_jobs;
  if (to_stdout) {
    std::cout << lines << std::flush;
    jobs_file.clear();
  } else {
    if (jobs_file.empty()) {
      jobs_file = fs::path(o.emit_slurm).replace_extension(".jobs");
      if (jobs_file == fs::path(o.emit_slurm)) jobs_file += ".jobs";
    }
    jobs_file = fs::absolute(jobs_file).lexically_normal();
    check_script_field("the jobs file", jobs_file.string());
    report::write_output(jobs_file, lines, jobs_file.string(), inputs);
  }
  say << "sweep: " << pending.size() << " pending run" << (pending.size() == 1 ? "" : "s") << " of "
      << plan.distinct().size() << " written to " << (to_stdout ? "stdout" : jobs_file.string()) << "\n";
  if (!o.emit_slurm.empty()) {
    if (to_stdout) throw report::OutputError("--emit-slurm needs its jobs in a file: --emit-jobs FILE, not -");
    if (pending.empty()) {
      say << "sweep: nothing pending, " << o.emit_slurm << " not written\n";
      return 0;
    }
    const fs::path script = fs::absolute(o.emit_slurm).lexically_normal();
    std::vector<fs::path> script_inputs = inputs;
    script_inputs.push_back(jobs_file);  // the script reads it
    report::write_output(script,
                         slurm_script(jobs_file, pending.size(), o.threads,
                                      "edgetrain-" + plan.spec.file.stem().string(), plan.out / "logs"),
                         o.emit_slurm, script_inputs);
    fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
    say << "sweep: job array written to " << script.string() << " (submit with: sbatch " << script.string() << ")\n";
  }
  say << "then: edgetrain sweep " << util::printable(o.file)
      << (o.out.empty() ? "" : " --out " + util::printable(o.out)) << " gathers sweep.csv\n";
  return 0;
}

// The SimGrid flags every run would be given, tried once before any run starts: a bad one is one
// line and exit 2 here, not a failure of every run.
void check_simgrid_flags(const Options& o) {
  if (o.simgrid_args.empty()) return;
  std::vector<sim::EngineFlag> flags;
  for (const std::string& a : o.simgrid_args) flags.push_back({a, util::printable(a)});
  sim::check_engine_flags({"edgetrain"}, flags);
}

int sweep(const Options& o) {
  SweepSpec spec = load_sweep(o.file);
  const fs::path out = o.out.empty() ? fs::path("results") / spec.file.stem() : fs::path(o.out);
  const std::string shown = util::printable(out.string());
  check_simgrid_flags(o);
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

  const std::vector<size_t> distinct = plan.distinct();
  std::vector<size_t> pending;
  for (size_t i : distinct)
    if (!inspect_run(plan.out / plan.runs[i].folder, plan.runs[i].hash).finished) pending.push_back(i);
  if (emitting) return emit(plan, pending, o);

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
  const bool all_ran = run_tasks(tasks, o.jobs, sim::interrupt_requested, sweeper);
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
  if (!all_ran || sim::interrupt_requested()) {
    std::fprintf(stderr, "edgetrain: sweep interrupted (run it again to resume)\n");
    return 130;
  }
  return unfinished.empty() ? 0 : 1;
}

}  // namespace

int sweep_command(const std::vector<std::string>& args) {
  Options o;
  try {
    o = parse(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "edgetrain: sweep: %s\n%s", e.what(), kUsage);
    return 2;
  }
  if (o.help) {
    std::cout << kUsage << "\n" << visible_options();
    return 0;
  }
  try {
    return sweep(o);
  } catch (const PlanError& e) {
    for (const auto& line : e.lines()) std::fprintf(stderr, "edgetrain: %s\n", line.c_str());
    return 2;
  } catch (const util::Interrupted& e) {
    std::fprintf(stderr, "edgetrain: sweep %s (no run was started)\n", e.what());
    return 130;
  } catch (const std::exception& e) {
    if (dynamic_cast<const util::InputError*>(&e)) {
      std::fprintf(stderr, "edgetrain: %s\n", e.what());
      return 2;
    }
    std::fprintf(stderr, "edgetrain: internal error: %s\n", e.what());
    return 1;
  }
}

}  // namespace edgetrain::cli
