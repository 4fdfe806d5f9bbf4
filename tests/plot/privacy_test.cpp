// The figures of runs with privacy mechanisms: secure aggregation's phases per round (secagg_phases,
// from rounds.csv's secagg_* columns, a failed round marked) and differential privacy's epsilon
// against simulated time beside accuracy against it (epsilon); neither for a plain run.
#include <doctest/doctest.h>

#include "plot_helpers.hpp"

using namespace test;

namespace {

// The eight-device test scenario, 4 rounds, with `sets` (the privacy mechanism).
fs::path privacy_run(const std::string& tag, const std::string& sets) {
  const fs::path out = fresh_dir("privacy-run-" + tag) / "run";
  const Result r = run_cli("run " + (kData / "eight-devices.json").string() + " --out " + out.string() +
                               " --quiet --set stop.rounds=4 " + sets,
                           "privacy-run-" + tag);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return out;
}

const std::string kSecagg = "--set 'privacy.secure_aggregation={\"kind\":\"secagg\"}'";

}  // namespace

TEST_CASE("plot and report: a run with secure aggregation adds its phases figure, a plain run has none") {
  const fs::path run = privacy_run("secagg", kSecagg);
  REQUIRE(slurp(run / "rounds.csv").find("secagg_failed_phase") != std::string::npos);
  const Result r = run_cli("plot " + run.string() + " --format svg", "privacy-secagg-plot");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const fs::path figure = run / "plots/secagg_phases.svg";
  CHECK(r.out.find(figure.string() + "\n") != std::string::npos);
  REQUIRE(fs::exists(figure));
  const std::string svg = slurp(figure);
  for (const std::string text : {">eight-devices: Secure aggregation: time and bytes per phase<", ">advertise keys<",
                                 ">share keys<", ">masked input (training)<", ">consistency check<", ">unmasking<",
                                 ">time per round<", ">protocol bytes per phase<"}) {
    CAPTURE(text);
    CHECK(svg.find(text) != std::string::npos);
  }
  CHECK(r.out.find("epsilon") == std::string::npos);  // no differential privacy: no epsilon figure

  const fs::path page = fresh_dir("privacy-secagg-report") / "page.html";
  const Result rep = run_cli("report " + run.string() + " -o " + page.string(), "privacy-secagg-report");
  REQUIRE_MESSAGE(rep.status == 0, rep.err);
  const std::string html = slurp(page);
  CHECK(html.find("<h3>Secure aggregation: time and bytes per phase</h3>") != std::string::npos);
  CHECK(html.find("id=\"fig-secagg_phases\"") != std::string::npos);
  CHECK(html.find("<title>round 0: masked input (training) ") != std::string::npos);  // hover texts per bar
  CHECK(html.find("<td>share_keys</td>") != std::string::npos);                       // the numbers, folded
  CHECK(html.find("rounds failed") == std::string::npos);
  check_self_contained(html);

  // A round whose protocol failed: the text column is accepted, the round marked and counted.
  std::string csv = slurp(run / "rounds.csv");
  const size_t second_row = csv.find('\n', csv.find('\n') + 1);
  const size_t end = csv.find('\n', second_row + 1);
  REQUIRE(end != std::string::npos);
  csv.insert(end, "unmasking");  // the last cell of the row: secagg_failed_phase
  write_file(run / "rounds.csv", csv);
  const Result failed = run_cli("report " + run.string() + " -o " + page.string(), "privacy-secagg-failed");
  REQUIRE_MESSAGE(failed.status == 0, failed.err);
  const std::string marked = slurp(page);
  CHECK(marked.find("1 of 4 rounds failed (1 at unmasking)") != std::string::npos);
  CHECK(marked.find("secure aggregation failed (1 at unmasking)</title>") != std::string::npos);

  // A plain run: neither privacy figure, in plot or report.
  const fs::path plain = privacy_run("plain", "");
  const Result p = run_cli("plot " + plain.string(), "privacy-plain-plot");
  REQUIRE_MESSAGE(p.status == 0, p.err);
  CHECK(!fs::exists(plain / "plots/secagg_phases.png"));
  CHECK(!fs::exists(plain / "plots/epsilon.png"));
  CHECK(fs::exists(plain / "plots/rounds.png"));
  const Result pr = run_cli("report " + plain.string(), "privacy-plain-report");
  REQUIRE_MESSAGE(pr.status == 0, pr.err);
  const std::string plain_html = slurp(plain / "report.html");
  CHECK(plain_html.find("Secure aggregation") == std::string::npos);
  CHECK(plain_html.find("Privacy spent") == std::string::npos);
}

TEST_CASE("plot and report: a run with differential privacy adds epsilon against time beside accuracy against it") {
  const fs::path run =
      privacy_run("dp", "--set 'privacy.dp={\"noise_multiplier\":1}' --set stop.epsilon=1000 --set eval.every_s=0.05");
  const Result r = run_cli("plot " + run.string() + " --format svg", "privacy-dp-plot");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const fs::path figure = run / "plots/epsilon.svg";
  CHECK(r.out.find(figure.string() + "\n") != std::string::npos);
  REQUIRE(fs::exists(figure));
  const std::string svg = slurp(figure);
  for (const std::string text : {">eight-devices: Privacy spent: epsilon<", ">epsilon at delta 1e-05<",
                                 ">simulated time (s)<", ">test accuracy<", ">budget 1000<"}) {
    CAPTURE(text);
    CHECK(svg.find(text) != std::string::npos);
  }
  CHECK(!fs::exists(run / "plots/secagg_phases.svg"));
  const Result rep = run_cli("report " + run.string(), "privacy-dp-report");
  REQUIRE_MESSAGE(rep.status == 0, rep.err);
  const std::string html = slurp(run / "report.html");
  CHECK(html.find("<h3>Privacy spent: epsilon</h3>") != std::string::npos);
  CHECK(html.find("id=\"fig-epsilon\"") != std::string::npos);
  CHECK(html.find("Dashed: the budget stop.epsilon = 1000.") != std::string::npos);
  // Shown right after the accuracy figures.
  CHECK(html.find("id=\"fig-accuracy_bytes\"") < html.find("id=\"fig-epsilon\""));
}
