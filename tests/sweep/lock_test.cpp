// One sweep per folder, by the folder itself: the lock is taken on --out with its symlinks resolved
// (DIR, DIR/ and a symlink to DIR are one folder) before anything is written, so a refused sweep
// leaves the running one's sweep.json as it was. And the small refusals before anything runs: a key
// given twice in a sweep file, a bad SimGrid flag; sweep.csv's cells that a spreadsheet would run.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include "../sim/cli_helpers.hpp"
#include "helpers.hpp"
#include "report/folder_lock.hpp"
#include "sweep/sweep_csv.hpp"

using sweep_test::kBase;
using sweep_test::TempDir;
namespace fs = std::filesystem;

namespace {

test::Result sweep(const TempDir& dir, const std::string& args) {
  const std::string cmd =
      "cd " + dir.path().string() + " && " + EDGETRAIN_BINARY + " sweep " + args + " >out.txt 2>err.txt";
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, test::slurp(dir.path() / "out.txt"),
          test::slurp(dir.path() / "err.txt")};
}

}  // namespace

TEST_CASE("sweep lock: DIR/ and a symlink to DIR are the folder another sweep holds, and nothing is written") {
  const TempDir dir("lock");
  dir.write("s.json", "{\"base\": \"" + kBase.string() + "\", \"grid\": {\"seed\": [1, 2]}}");
  dir.write("held/sweep.json", "the running sweep's plan\n");
  fs::create_directory_symlink(dir.path() / "held", dir.path() / "alias");
  const edgetrain::report::FolderLock lock(fs::canonical(dir.path() / "held"), "held");  // the running sweep
  for (const std::string out : {"held", "held/", "alias", "alias/", "./held/../held"}) {
    for (const std::string emit : {"", " --emit-jobs j.txt"}) {
      CAPTURE(out + emit);
      const test::Result r = sweep(dir, "s.json --out " + out + emit);
      CHECK(r.status == 2);
      CHECK(r.err.find("edgetrain: --out " + out + ": another edgetrain run (pid ") == 0);
      CHECK(test::slurp(dir.path() / "held/sweep.json") == "the running sweep's plan\n");
      CHECK(!fs::exists(dir.path() / "held/runs"));
      CHECK(!fs::exists(dir.path() / "j.txt"));
    }
  }
}

TEST_CASE("sweep: a key given twice in the sweep file and a bad SimGrid flag are refused before anything runs") {
  const TempDir dir("refusals");
  dir.write("dup.json", "{\"base\": \"" + kBase.string() + "\",\n \"grid\": {\"seed\": [1], \"seed\": [2]}}");
  test::Result r = sweep(dir, "dup.json --out o");
  CHECK(r.status == 2);
  CHECK(r.err == "edgetrain: dup.json:2:24: duplicate key \"seed\" in one object (first at dup.json:2:11)\n");
  dir.write("s.json", "{\"base\": \"" + kBase.string() + "\", \"grid\": {\"seed\": [1, 2]}}");
  r = sweep(dir, "s.json --out o --cfg=network/model:nonsense");
  CHECK(r.status == 2);
  CHECK(test::lines_of(r.err).size() == 1);
  CHECK(r.err.find("edgetrain: --cfg=network/model:nonsense: ") == 0);
  CHECK(!fs::exists(dir.path() / "o"));
}

TEST_CASE("sweep.csv: text a spreadsheet would run as a formula gets a leading '") {
  using edgetrain::sweep::spreadsheet_text;
  for (const std::string formula : {"=1+1", "+cmd", "@SUM(A1)", "-x", "-1+cmd|' /C calc'!A0", "\tx", "\rx", "'q"}) {
    CAPTURE(formula);
    CHECK(spreadsheet_text(formula) == "'" + formula);
  }
  for (const std::string plain : {"sync", "-1", "-0.5", "1e-05", "", "a=b", "runs/0123abcd"}) {
    CAPTURE(plain);
    CHECK(spreadsheet_text(plain) == plain);
  }
}
