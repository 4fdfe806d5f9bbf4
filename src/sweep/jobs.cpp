// See jobs.hpp.
#include "sweep/jobs.hpp"

#include <filesystem>
#include <iostream>

#include "report/output_file.hpp"
#include "sweep/emit.hpp"
#include "util/printable.hpp"

namespace edgetrain::sweep {

namespace fs = std::filesystem;

namespace {

// The binary each run is started with: the one running the sweep.
fs::path this_program() { return fs::read_symlink("/proc/self/exe"); }

}  // namespace

std::vector<std::string> run_argv(const Plan& plan, const PlannedRun& run, const SweepOptions& o) {
  std::vector<std::string> argv = {this_program().string(), "run", plan.spec.base.string()};
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

// One line naming the first field that holds a control character (each line of a script is one
// command).
void check_emitted_fields(const Plan& plan, const SweepOptions& o) {
  check_script_field("the edgetrain binary", this_program().string());
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

void emit_jobs(const Plan& plan, const std::vector<size_t>& pending, const SweepOptions& o) {
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
      return;
    }
    const fs::path script = fs::absolute(o.emit_slurm).lexically_normal();
    std::vector<fs::path> script_inputs = inputs;
    script_inputs.push_back(jobs_file);  // the script reads it
    report::write_output(script,
                         slurm_script(jobs_file, pending.size(), o.threads,
                                      "edgetrain-" + plan.spec.file.stem().string(), plan.out / "logs", o.ranks),
                         o.emit_slurm, script_inputs);
    fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
    say << "sweep: job array written to " << script.string() << " (submit with: sbatch " << script.string() << ")\n";
  }
  say << "then: edgetrain sweep " << util::printable(o.file)
      << (o.out.empty() ? "" : " --out " + util::printable(o.out)) << " gathers sweep.csv\n";
}

}  // namespace edgetrain::sweep
