// `edgetrain plot` end to end: the figures of a tiny run, of a many-device run carrying the lead's
// new files, and of a sweep; bad folders, bad options and a Python without matplotlib give one line
// and exit 2.
#include <doctest/doctest.h>

#include "plot_helpers.hpp"

using namespace test;

namespace {

bool is_png(const fs::path& p) {
  const std::string head = slurp(p).substr(0, 8);
  return head == std::string("\x89PNG\r\n\x1a\n", 8);
}

}  // namespace

TEST_CASE("plot: a tiny streaming run gives its accuracy, buffer, bytes, time-split and rounds figures") {
  const fs::path run = tiny_run("figures");
  const fs::path out = fresh_dir("plot-figures-out");
  const Result r = run_cli("plot " + run.string() + " --out " + out.string(), "plot-figures");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.err.empty());
  for (const std::string name :
       {"accuracy_time", "accuracy_bytes", "buffers", "devices_bytes", "links", "time_split", "rounds"}) {
    CAPTURE(name);
    const fs::path png = out / (std::string(name) + ".png");
    CHECK(r.out.find(png.string() + "\n") != std::string::npos);
    REQUIRE(fs::exists(png));
    CHECK(is_png(png));
    CHECK(fs::file_size(png) > 10000);  // a drawn figure, not an empty canvas
  }
  CHECK(!fs::exists(out / "staleness.png"));  // a sync run: no staleness
  // The default folder is the run's own plots/, and a rerun of the scenario there still replaces it.
  const Result again = run_cli("plot " + run.string() + " --format svg", "plot-figures-svg");
  REQUIRE_MESSAGE(again.status == 0, again.err);
  const std::string svg = slurp(run / "plots/links.svg");
  CHECK(svg.find("bytes carried") != std::string::npos);  // text stays text (svg.fonttype none)
  const Result rerun =
      run_cli("run " + (run / "scenario.json").string() + " --out " + run.string() + " --quiet", "plot-rerun");
  CHECK_MESSAGE(rerun.status == 0, rerun.err);
  CHECK(!fs::exists(run / "plots"));
}

TEST_CASE("plot and report: a diverged run (a NaN loss) is drawn up to where it diverged") {
  const fs::path out = fresh_dir("plot-diverged") / "run";
  const Result run = run_cli("run " + (kData / "eight-devices.json").string() + " --out " + out.string() +
                                 " --quiet --set training.lr=1e9 --set eval.every_s=0.02",
                             "plot-diverged-run");
  REQUIRE(run.status == 3);
  REQUIRE(slurp(out / "metrics.csv").find(",nan,") != std::string::npos);
  const Result plot = run_cli("plot " + out.string(), "plot-diverged");
  CHECK_MESSAGE(plot.status == 0, plot.err);
  CHECK(is_png(out / "plots/accuracy_time.png"));
  const Result report = run_cli("report " + out.string(), "plot-diverged-report");
  CHECK_MESSAGE(report.status == 0, report.err);
  CHECK(slurp(out / "report.html").find("loss not finite") != std::string::npos);
}

TEST_CASE("plot: the same run gives byte-identical PNG images") {
  const fs::path run = tiny_run("identical");
  // (SVG output is checked the same way by the report test: same run, same page.)
  const fs::path a = fresh_dir("plot-identical-a"), b = fresh_dir("plot-identical-b");
  REQUIRE(run_cli("plot " + run.string() + " --out " + a.string(), "plot-id-a").status == 0);
  REQUIRE(run_cli("plot " + run.string() + " --out " + b.string(), "plot-id-b").status == 0);
  size_t images = 0;
  for (const auto& entry : fs::directory_iterator(a)) {
    CAPTURE(entry.path().filename().string());
    CHECK(slurp(entry.path()) == slurp(b / entry.path().filename()));
    ++images;
  }
  CHECK(images == 7);
}

TEST_CASE("plot: 30 devices of three classes with rounds.csv add the rounds figure") {
  const fs::path run = many_run("many");
  const Result r = run_cli("plot " + run.string(), "plot-many");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  for (const std::string name : {"rounds", "buffers", "devices_bytes", "links", "time_split"}) {
    CAPTURE(name);
    CHECK(is_png(run / "plots" / (std::string(name) + ".png")));
  }
  CHECK(r.out.find("not drawn: no evaluations in metrics.csv (a timing-only run)") != std::string::npos);
}

TEST_CASE("plot: a sweep draws a summary figure against a swept value, grouped by another") {
  const fs::path sweep = fake_sweep("figure");
  const Result r = run_cli(
      "plot " + sweep.string() + " --y final_test_accuracy --y sim_time_s --x training.mode --by seed", "plot-sweep");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const auto written = lines_of(r.out);
  REQUIRE(written.size() == 2);
  CHECK(written[0] == (sweep / "plots/sweep_final_test_accuracy_vs_training.mode_by_seed.png").string());
  CHECK(written[1] == (sweep / "plots/sweep_sim_time_s_vs_training.mode_by_seed.png").string());
  for (const auto& f : written) CHECK(is_png(f));
  // Defaults: no run reached a target, so final accuracy; x the first varied key, one line per value
  // of the other varied keys but seed (the only other one here: one line, seeds averaged).
  const Result d = run_cli("plot " + sweep.string() + " --format svg", "plot-sweep-default");
  REQUIRE_MESSAGE(d.status == 0, d.err);
  CHECK(d.out == (sweep / "plots/sweep_final_test_accuracy_vs_training.mode.svg").string() + "\n");
  const std::string svg = slurp(sweep / "plots/sweep_final_test_accuracy_vs_training.mode.svg");
  CHECK(svg.find(">sync<") != std::string::npos);
  CHECK(svg.find(">async<") != std::string::npos);
}

TEST_CASE("plot: bad folders and options give one line and exit 2") {
  const fs::path empty = fresh_dir("plot-empty");
  const fs::path sweep = fresh_dir("plot-bad-sweep");
  write_file(sweep / "sweep.csv", "training.mode,status,final_test_accuracy,folder\nsync,completed,0.5,runs/1\n");
  const fs::path failed = fresh_dir("plot-failed-sweep");  // no run finished: nothing to draw yet
  write_file(failed / "sweep.csv",
             "training.mode,status,status_reason,final_test_accuracy,folder\nsync,failed,exit status 1,,runs/1\n");
  const fs::path run = fresh_dir("plot-bad-json");
  write_file(run / "summary.json", "{");
  write_file(run / "scenario.json", "{}");
  struct Case {
    std::string args, message;
  } cases[] = {
      {"plot " + empty.string(),
       empty.string() + ": not a run folder (no summary.json and scenario.json) nor a sweep folder (no sweep.csv)"},
      {"plot " + (empty / "nope").string(), (empty / "nope").string() + ": no such folder"},
      {"report " + empty.string(), "not a run folder"},
      {"plot", "the following arguments are required: RUN_OR_SWEEP_DIR"},
      {"plot " + empty.string() + " --colour red", "unrecognized arguments: --colour red"},
      {"plot " + sweep.string() + " --y final_accuracy", "--y final_accuracy: not a column of " +
                                                             (sweep / "sweep.csv").string() +
                                                             " (did you mean \"final_test_accuracy\"?)"},
      {"plot " + sweep.string() + " --x mode", "--x mode: not a column"},
      {"plot " + run.string(), (run / "summary.json").string() + ": not valid JSON"},
      {"plot " + failed.string(), (failed / "sweep.csv").string() + ": no numeric summary column to plot"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    const Result r = run_cli(c.args, "plot-bad");
    CHECK(r.status == 2);
    CHECK(lines_of(r.err).size() == 1);
    CHECK(r.err.find(c.message) != std::string::npos);
    CHECK(r.err.find("Traceback") == std::string::npos);
  }
  // The report of that sweep still lists its runs.
  const Result page = run_cli("report " + failed.string(), "plot-failed-report");
  CHECK_MESSAGE(page.status == 0, page.err);
  CHECK(slurp(failed / "report.html").find("No figures: no run of the sweep has summary figures yet.") !=
        std::string::npos);
}

TEST_CASE("plot: a Python without matplotlib gives one line naming it and exit 2") {
  // Python without its site module sees none of Debian's packages: matplotlib is missing for real.
  const fs::path dir = fresh_dir("plot-no-mpl");
  const fs::path python = dir / "python-without-site";
  write_file(python, "#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n");
  fs::permissions(python, fs::perms::owner_all);
  const fs::path run = dir / "run";  // a folder the scripts accept before they load matplotlib
  fs::create_directories(run);
  write_file(run / "summary.json", "{}");
  write_file(run / "scenario.json", "{}");
  for (const std::string command : {"plot", "report"}) {
    setenv("EDGETRAIN_PYTHON", python.c_str(), 1);
    const Result bad = run_cli(command + " " + run.string(), "plot-no-mpl");
    unsetenv("EDGETRAIN_PYTHON");
    CHECK(bad.status == 2);
    CHECK(lines_of(bad.err).size() == 1);
    CHECK(bad.err ==
          "edgetrain " + command +
              ": matplotlib is not available to /usr/bin/python3 (on Debian: apt-get install python3-matplotlib)\n");
  }
  setenv("EDGETRAIN_PYTHON", (dir / "no-such-python").c_str(), 1);
  const Result missing = run_cli("plot " + run.string(), "plot-no-python");
  unsetenv("EDGETRAIN_PYTHON");
  CHECK(missing.status == 2);
  CHECK(missing.err ==
        "edgetrain plot: " + (dir / "no-such-python").string() +
            " not found: plots need Python 3 with matplotlib (on Debian: apt-get install python3-matplotlib)\n");
}
