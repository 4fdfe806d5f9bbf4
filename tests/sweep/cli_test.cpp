// `edgetrain sweep` as users run it: bad input refused before anything runs (every bad run named,
// exit 2), and runs that fail or diverge kept in their rows.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../sim/cli_helpers.hpp"
#include "helpers.hpp"

using sweep_test::kBase;
using sweep_test::TempDir;
namespace fs = std::filesystem;

namespace {

using test::lines_of;
using test::Result;
using test::slurp;

// `edgetrain sweep ARGS` run in `dir`.
Result sweep(const TempDir& dir, const std::string& args) {
  const std::string cmd =
      "cd " + dir.path().string() + " && " + EDGETRAIN_BINARY + " sweep " + args + " >out.txt 2>err.txt";
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(dir.path() / "out.txt"), slurp(dir.path() / "err.txt")};
}

}  // namespace

TEST_CASE("sweep CLI: the bad overrides of every run are reported before anything runs, exit 2") {
  TempDir dir("cli-bad-runs");
  dir.write("s.json", R"({"base": ")" + kBase.string() +
                          R"(", "grid": {"training.lr": [0.1, -1], "training.mode": ["sync", "bogus"]}})");
  const Result r = sweep(dir, "s.json");
  CHECK(r.status == 2);
  const auto lines = lines_of(r.err);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0].find("edgetrain: s.json: run 2 of 4 (training.lr=0.1 training.mode=bogus): training.mode") == 0);
  CHECK(lines[1].find("edgetrain: s.json: run 3 of 4 (training.lr=-1 training.mode=sync): training.lr") == 0);
  CHECK(lines[2].find("edgetrain: s.json: run 4 of 4 (training.lr=-1 training.mode=bogus): ") == 0);
  CHECK(r.out.empty());
  CHECK_FALSE(fs::exists(dir.path() / "results"));  // nothing ran, no folder made
}

TEST_CASE("sweep CLI: a bad sweep file or option is one line naming the file and key, exit 2") {
  TempDir dir("cli-bad-file");
  const std::string base = R"("base": ")" + kBase.string() + R"(")";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{" + base + R"(, "grid": {"seed": [1]}, "runz": []})",
       "edgetrain: s.json: runz: unknown key (expected base, grid, runs)"},
      {R"({"grid": {"seed": [1]}})", "edgetrain: s.json: base: expected the path of the base scenario"},
      {R"({"base": "nope.json", "grid": {"seed": [1]}})",
       "edgetrain: s.json: base: " + (dir.path() / "nope.json").string() + ": no such file"},
      {"{" + base + R"(, "grid": {"seed": 1}})", "edgetrain: s.json: grid.seed: expected a non-empty list of values"},
      {"{" + base + ", ", "edgetrain: s.json: malformed JSON"},
      {"{" + base + "}", "edgetrain: s.json: nothing to vary"},
  };
  for (const auto& [content, expected] : cases) {
    CAPTURE(content);
    dir.write("s.json", content);
    const Result r = sweep(dir, "s.json");
    CHECK(r.status == 2);
    CHECK(lines_of(r.err).size() == 1);
    CHECK(r.err.rfind(expected, 0) == 0);
  }
  CHECK(sweep(dir, "missing.json").err.rfind("edgetrain: missing.json: cannot open file", 0) == 0);
  const Result jobs = sweep(dir, "s.json --jobs 0");
  CHECK(jobs.status == 2);
  CHECK(jobs.err.rfind("edgetrain: sweep: --jobs: expected a whole number from 1 to 256, got \"0\"\n", 0) == 0);
  const Result ranks = sweep(dir, "s.json --ranks 3");  // only an emitted job array starts MPI runs
  CHECK(ranks.status == 2);
  CHECK(ranks.err.rfind("edgetrain: sweep: --ranks: only with --emit-slurm", 0) == 0);
  CHECK(sweep(dir, "").err.rfind("edgetrain: sweep: missing SWEEP.json\n", 0) == 0);
  CHECK(sweep(dir, "--help").status == 0);
}

TEST_CASE("sweep CLI: a run that fails or diverges stays in its row, the others complete") {
  TempDir dir("cli-failing");
  const fs::path two = fs::path(EDGETRAIN_SOURCE_DIR) / "tests/sim/data/two-devices.json";
  // devices.0=island passes the scenario checks but has no route in the platform: the run exits 2.
  dir.write("s.json", R"({"base": ")" + two.string() +
                          R"(", "runs": [{"training.lr": 0.1}, {"training.lr": 1e30}, {"devices.0": "island"}]})");
  const Result r = sweep(dir, "s.json --jobs 2 --threads 1");
  CHECK(r.status == 1);
  CHECK(r.out.find(" diverged  (training.lr=1e+30)") != std::string::npos);
  CHECK(r.out.find(" failed: edgetrain: devices[0]: no route from host \"island\" to \"server\" in the platform") !=
        std::string::npos);
  CHECK(r.out.find("sweep: 2 of 3 finished, 1 not\n") != std::string::npos);
  const auto rows = lines_of(slurp(dir.path() / "results/s/sweep.csv"));
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].rfind("training.lr,devices.0,status,status_reason,sim_time_s,", 0) == 0);
  CHECK(rows[1].rfind("0.1,,completed,stop.rounds reached,", 0) == 0);
  CHECK(rows[2].rfind("1e+30,,diverged,", 0) == 0);
  CHECK(rows[3].rfind(
            ",island,failed,\"edgetrain: devices[0]: no route from host \"\"island\"\" to \"\"server\"\" in the "
            "platform\",,",
            0) == 0);
  // Running it again runs only the failed one.
  const Result again = sweep(dir, "s.json --jobs 2 --threads 1");
  CHECK(again.status == 1);
  CHECK(again.out.find("3 runs, 2 finished earlier, 1 to run") != std::string::npos);
}
