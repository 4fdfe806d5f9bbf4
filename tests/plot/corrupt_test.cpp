// The report's and the plots' readers against damaged results folders: tests/plot/corrupt_results.py
// mutates real files (seeded, so a failure names the case that reproduces it) and requires exit 0 or
// exit 2 with one line, never an internal error. It stands in for a fuzz target: the readers are Python.
#include <doctest/doctest.h>

#include "plot_helpers.hpp"

using namespace test;

TEST_CASE("report and plot: corrupted results files give exit 0 or one line and exit 2, never a traceback") {
  const fs::path run = tiny_run("corrupt");
  const fs::path sweep = fake_sweep("corrupt");
  const fs::path log = fresh_dir("corrupt-log") / "out";
  const std::string cmd = "/usr/bin/python3 -s -E -B " + (kSource / "tests/plot/corrupt_results.py").string() +
                          " 19 120 " + run.string() + " " + sweep.string() + " >" + log.string() + " 2>&1";
  const int raw = std::system(cmd.c_str());
  const std::string out = slurp(log);
  CHECK_MESSAGE((WIFEXITED(raw) && WEXITSTATUS(raw) == 0), out);
  CHECK(out.find("120 corrupted folders") != std::string::npos);
}

TEST_CASE("report: -o through a device or FIFO, never over a special file or the folder's own files") {
  const fs::path run = tiny_run("report-outputs");
  Result r = run_cli("report " + run.string() + " -o /dev/null", "report-devnull");
  CHECK_MESSAGE(r.status == 0, r.err);
  CHECK(fs::is_character_file("/dev/null"));
  for (const std::string own : {"summary.json", "metrics.csv"}) {
    const std::string before = slurp(run / own);
    r = run_cli("report " + run.string() + " -o " + (run / own).string(), "report-own-" + own);
    CHECK(r.status == 2);
    CHECK(r.err == "edgetrain report: " + (run / own).string() +
                       ": is one of the files read; writing it would destroy it: choose another output\n");
    CHECK(slurp(run / own) == before);
  }
  const fs::path dir = fresh_dir("report-outputs-folder");
  r = run_cli("report " + run.string() + " -o " + dir.string(), "report-folder");
  CHECK(r.status == 2);
  CHECK(r.err.find(": is a folder;") != std::string::npos);
  r = run_cli("plot " + run.string() + " -o /dev/null", "plot-devnull");
  CHECK(r.status == 2);
  CHECK(r.err == "edgetrain plot: /dev/null: not a folder (--out names the folder of the images)\n");
}
