// What a run folder counts as (resume), sweep.csv, the emitted command lines and SLURM script,
// and the progress estimate.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>

#include "helpers.hpp"
#include "scenario/load.hpp"
#include "sweep/emit.hpp"
#include "sweep/hash.hpp"
#include "sweep/plan.hpp"
#include "sweep/progress.hpp"
#include "sweep/run_folder.hpp"
#include "sweep/sweep_csv.hpp"

using namespace edgetrain::sweep;
using ojson = nlohmann::ordered_json;
using sweep_test::kBase;
using sweep_test::TempDir;

TEST_CASE("run folder: finished only with a final status and this run's scenario.json") {
  TempDir dir("folder");
  const nlohmann::json resolved = edgetrain::scenario::load_scenario(kBase).resolved;
  const std::string hash = scenario_hash(resolved);
  CHECK(inspect_run(dir.path() / "none", hash).reason == "not run yet");
  // scenario.json as the run writes it (indented); the hash is of its content, not its layout.
  dir.write("r/scenario.json", resolved.dump(2) + "\n");
  CHECK(inspect_run(dir.path() / "r", hash).reason == "no complete results");
  for (const std::string status : {"completed", "target_reached", "diverged"}) {
    dir.write("r/summary.json", R"({"status": ")" + status + R"(", "status_reason": "why", "rounds": 5})");
    const FolderState s = inspect_run(dir.path() / "r", hash);
    CHECK(s.finished);
    CHECK(s.status == status);
    CHECK(s.summary["rounds"] == 5);
  }
  for (const std::string status : {"interrupted", "failed"}) {
    dir.write("r/summary.json", R"({"status": ")" + status + R"(", "status_reason": "stopped"})");
    const FolderState s = inspect_run(dir.path() / "r", hash);
    CHECK_FALSE(s.finished);
    CHECK(s.ours);
    CHECK(s.reason == "stopped");
  }
  dir.write("r/summary.json", R"({"status": "completed"})");
  CHECK_FALSE(inspect_run(dir.path() / "r", std::string(64, '0')).finished);
  CHECK(inspect_run(dir.path() / "r", std::string(64, '0')).reason == "holds the results of another scenario");
  dir.write("r/summary.json", R"({"status": "compl)");  // cut short
  CHECK(inspect_run(dir.path() / "r", hash).reason == "no complete results");
  dir.write("r/summary.json", R"({"status": 3})");
  CHECK_FALSE(inspect_run(dir.path() / "r", hash).finished);
}

TEST_CASE("sweep.csv: varied keys, status, summary figures with units, folder, one row per run") {
  SweepSpec spec = expand(ojson::parse(R"({"training.mode": ["sync", "async"]})"),
                          ojson::parse(R"([{}, {"stop.rounds": 7}])"), "s.json");
  spec.file = "/tmp/s.json";
  spec.base = kBase;
  const Plan plan = make_plan(std::move(spec), "/tmp/out");
  std::vector<RunRow> rows(4);
  rows[0] = {"completed", "stop.rounds reached",
             nlohmann::json::parse(R"({"sim_time_s": 9.5, "rounds": 5, "time_to_target_s": null, "bytes_up": 12,
                                       "status": "completed", "wall_time_s": 0.25})")};
  rows[1] = {"failed", "edgetrain: internal error: boom", nullptr};
  rows[2] = {"diverged", "NaN, loss", nlohmann::json::parse(R"({"rounds": 2})")};
  rows[3] = {"pending", "not run (not run yet)", nullptr};
  const std::string csv = sweep_csv(plan, rows);
  const std::string header = csv.substr(0, csv.find('\n'));
  CHECK(header.rfind("training.mode,stop.rounds,status,status_reason,sim_time_s,time_to_target_s,rounds,", 0) == 0);
  CHECK(header.size() > 7);
  CHECK(header.substr(header.size() - 19) == ",wall_time_s,folder");
  const std::string empty_figures(summary_columns().size() - 1, ',');
  // Between rounds and bytes_up: round_mean_s, round_median_s, round_p95_s, round_max_s and the accuracies.
  const std::string row0 = "sync,,completed,stop.rounds reached,9.5,,5,,,,,,,,12," +
                           std::string(summary_columns().size() - 12, ',') + "0.25," + plan.runs[0].folder + "\n";
  CHECK(csv.find("\n" + row0) != std::string::npos);
  CHECK(csv.find("\nsync,7,failed,edgetrain: internal error: boom," + empty_figures + "," + plan.runs[1].folder) !=
        std::string::npos);
  CHECK(csv.find("\nasync,,diverged,\"NaN, loss\",,,2,") != std::string::npos);
  CHECK(csv.find("\nasync,7,pending,not run (not run yet),") != std::string::npos);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);
}

TEST_CASE("sweep.csv: labelled runs add a label column after the varied keys") {
  SweepSpec spec = expand(ojson::parse(R"({"seed": [1]})"),
                          ojson::parse(R"([{"label": "=cmd", "stop.rounds": 2}, {"stop.rounds": 3}])"), "s.json");
  spec.file = "/tmp/s.json";
  spec.base = kBase;
  const Plan plan = make_plan(std::move(spec), "/tmp/out");
  const std::vector<RunRow> rows(2, {"pending", "not run", nullptr});
  const std::string csv = sweep_csv(plan, rows);
  CHECK(csv.rfind("seed,stop.rounds,label,status,", 0) == 0);
  CHECK(csv.find("\n1,2,'=cmd,pending,") != std::string::npos);  // a formula-like label defused
  CHECK(csv.find("\n1,3,,pending,") != std::string::npos);
}

TEST_CASE("sweep.csv: round_s and bytes_by_level become their columns, empty when null or absent") {
  SweepSpec spec = expand(ojson::parse(R"({"training.mode": ["sync", "async"]})"), ojson::parse("[{}]"), "s.json");
  spec.file = "/tmp/s.json";
  spec.base = kBase;
  const Plan plan = make_plan(std::move(spec), "/tmp/out");
  std::vector<RunRow> rows(2);
  rows[0] = {"completed", "stop.rounds reached",
             nlohmann::json::parse(R"({"round_s": null, "bytes_to_server": 40, "status": "completed"})")};
  rows[1] = {"completed", "stop.rounds reached", nlohmann::json::parse(R"({
      "round_s": {"mean": 2.5, "median": 2, "p95": 4.25, "max": 4.25, "count": 4},
      "bytes_to_server": 8, "bytes_by_level": {"device_to_site": 40, "site_to_cloud": 8, "cloud_to_site": 16,
      "site_to_device": 80}})")};
  const std::string csv = sweep_csv(plan, rows);
  std::vector<std::vector<std::string>> table;
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    for (std::string cell; std::getline(l, cell, ',');) cells.push_back(cell);
    table.push_back(cells);
  }
  REQUIRE(table.size() == 3);
  auto cell = [&](size_t row, const std::string& column) {
    const auto at = std::find(table[0].begin(), table[0].end(), column);
    REQUIRE(at != table[0].end());
    const auto i = static_cast<size_t>(at - table[0].begin());
    return i < table[row].size() ? table[row][i] : std::string();
  };
  CHECK(cell(1, "round_mean_s").empty());
  CHECK(cell(1, "bytes_site_to_cloud").empty());
  CHECK(cell(1, "bytes_to_server") == "40");
  CHECK(cell(2, "round_mean_s") == "2.5");
  CHECK(cell(2, "round_median_s") == "2");
  CHECK(cell(2, "round_p95_s") == "4.25");
  CHECK(cell(2, "round_max_s") == "4.25");
  CHECK(cell(2, "bytes_device_to_site") == "40");
  CHECK(cell(2, "bytes_site_to_cloud") == "8");
  CHECK(cell(2, "bytes_cloud_to_site") == "16");
  CHECK(cell(2, "bytes_site_to_device") == "80");
  CHECK(cell(2, "bytes_to_server") == "8");
}

TEST_CASE("emit: command lines quoted for a shell, and the SLURM array runs line i with the task's CPUs") {
  CHECK(shell_quote("training.mode=\"sync\"") == "'training.mode=\"sync\"'");
  CHECK(shell_quote("/a/b-c_d.json") == "/a/b-c_d.json");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("") == "''");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(command_line({"/bin/edgetrain", "run", "x y.json", "--set", "model.hidden=[64,32]"}) ==
        "/bin/edgetrain run 'x y.json' --set 'model.hidden=[64,32]'");
  const std::string s = slurm_script("/out/jobs.txt", 6, 2, "edgetrain-s", "/out/logs");
  CHECK(s.rfind("#!/bin/bash\n", 0) == 0);
  CHECK(s.find("#SBATCH --array=1-6\n") != std::string::npos);
  CHECK(s.find("#SBATCH --cpus-per-task=2\n") != std::string::npos);
  CHECK(s.find("#SBATCH --output=\"/out/logs/slurm-%A_%a.log\"\n") != std::string::npos);
  CHECK(s.find("#SBATCH --job-name=\"edgetrain-s\"\n") != std::string::npos);
  CHECK(s.find("jobs=/out/jobs.txt\n") != std::string::npos);
  CHECK(s.find("--threads ${SLURM_CPUS_PER_TASK:-2}") != std::string::npos);
  CHECK(s.find("#SBATCH --ntasks=1\n") != std::string::npos);
  CHECK(s.find("srun") == std::string::npos);
  // --ranks 4: each array task is one MPI run of 4 ranks under srun.
  const std::string mpi = slurm_script("/out/jobs.txt", 6, 2, "edgetrain-s", "/out/logs", 4);
  CHECK(mpi.find("#SBATCH --ntasks=4\n") != std::string::npos);
  CHECK(mpi.find("eval \"srun --mpi=pmix ${line% --threads *} --threads ${SLURM_CPUS_PER_TASK:-2}\"\n") !=
        std::string::npos);
}

TEST_CASE("progress: time left from the mean of finished runs, spread over the jobs") {
  CHECK(Progress::time_left(-1, 3, {}, 2) < 0);
  CHECK(Progress::time_left(10, 4, {}, 2) == doctest::Approx(20));
  CHECK(Progress::time_left(10, 0, {4, 12}, 2) == doctest::Approx(3));  // 6 s left of one, the other overdue
  CHECK(Progress::duration_text(12.4) == "12 s");
  CHECK(Progress::duration_text(200) == "3 min 20 s");
  CHECK(Progress::duration_text(3720) == "1 h 02 min");
  std::ostringstream out;
  Progress pipe(out, false, 3, 1, 1);
  pipe.started();
  pipe.ended(false, 2, "abc completed");
  pipe.tick({});
  CHECK(out.str() == "[2/3] abc completed\n");
  std::ostringstream tty;
  Progress live(tty, true, 3, 1, 1);
  live.started();
  live.ended(true, 2, "abc failed");
  live.close();
  CHECK(tty.str().find("\rsweep: 2/3 done, 0 running, 1 failed, time left ~2 s") != std::string::npos);
  CHECK(tty.str().find("\rabc failed\n") != std::string::npos);
  CHECK(tty.str().back() == '\n');
}
