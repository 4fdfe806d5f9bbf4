// `edgetrain report` without a browser: the page holds every figure as inline SVG with hover
// tooltips, its tables and the resolved scenario; it references no file and no network address;
// its ids are unique (several figures share one page); the same run gives the same bytes. A sweep's
// page links each row of its runs table to that run's section. (browser_test.cpp renders them.)
#include <doctest/doctest.h>

#include <regex>
#include <set>

#include "plot_helpers.hpp"

using namespace test;

namespace {

std::string report_of(const fs::path& folder, const std::string& tag) {
  const fs::path page = fresh_dir("report-" + tag) / "page.html";
  const Result r = run_cli("report " + folder.string() + " -o " + page.string(), "report-" + tag);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out == page.string() + "\n");
  CHECK(fs::directory_iterator(page.parent_path())->path() == page);  // nothing beside it
  return slurp(page);
}

// 12345 -> "12,345", as the hover texts print counts.
std::string thousands(int64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string mbps_text(double value, const char* unit, const char* spec) {  // printf-formatted value + unit
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, spec, value);
  return buffer + std::string(unit);
}

void check_unique_ids(const std::string& page) {
  const std::regex id(R"re(\bid="([^"]+)")re");
  std::set<std::string> seen;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), id); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    CAPTURE(name);
    CHECK(seen.insert(name).second);
  }
}

}  // namespace

TEST_CASE("report: a run's page holds its figures with tooltips, its tables and the scenario, and nothing else") {
  const fs::path run = tiny_run("page");
  const std::string page = report_of(run, "page");
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(occurrences(page, "<svg ") == 7);  // accuracy x2, time split, links, bytes per device, buffers, rounds
  for (const std::string title :
       {"Test accuracy against simulated time", "Test accuracy against bytes on the wire so far, up + down",
        "Compute, communication, wait and offline time per device", "Bytes and load per link", "Bytes per device",
        "Buffer occupancy over time", "Round durations and the slowest device"}) {
    CAPTURE(title);
    CHECK(page.find(std::string("<h3>") + title + "</h3>") != std::string::npos);
  }
  CHECK(occurrences(page, "<title>") > 50);  // hover texts: a point per evaluation, a bar per device and link
  CHECK(page.find("<title>d1: compute ") != std::string::npos);
  CHECK(page.find("Not drawn") == std::string::npos);
  CHECK(occurrences(page, "<table>") >= 6);
  CHECK(page.find("<td>final_test_accuracy</td>") != std::string::npos);
  CHECK(page.find("&quot;name&quot;: &quot;eight-devices&quot;") != std::string::npos);  // the resolved scenario
  CHECK(page.find("<p>The busiest links (summary.json):</p>") != std::string::npos);
  check_self_contained(page);
  check_unique_ids(page);
  CHECK(report_of(run, "page-again") == page);  // same run, same page
  // A run written before summary.json had its bottleneck section: the busiest links of links.csv.
  nlohmann::json summary = read_json(run / "summary.json");
  summary.erase("bottleneck");
  write_file(run / "summary.json", summary.dump());
  CHECK(report_of(run, "page-older").find("no bottleneck section; the busiest links by mean utilisation") !=
        std::string::npos);
}

TEST_CASE("report: the bottleneck section, classes, rounds and energy come from the files that hold them") {
  const fs::path run = many_run("lead");
  add_energy(run);
  const auto summary = read_json(run / "summary.json");
  const auto& bottleneck = summary.at("bottleneck");
  const std::string busiest = bottleneck.at("links").at(0).at("link");
  const std::string page = report_of(run, "lead");
  CHECK(page.find("<td>" + busiest + "</td><td>" +
                  mbps_text(bottleneck["links"][0]["bandwidth_bps"].get<double>() / 1e6, " Mbit/s", "%g")) !=
        std::string::npos);
  const std::string critical = bottleneck.at("critical_path").at("device");
  CHECK(page.find("Critical path: <b>" + critical + "</b> was the round&#x27;s slowest device in ") !=
        std::string::npos);
  CHECK(page.find("<th>data-bound</th>") != std::string::npos);
  CHECK(page.find("<td>jetson</td>") != std::string::npos);  // by_class
  CHECK(page.find(">pi (10)<") != std::string::npos);        // 30 devices: time split by class
  CHECK(page.find("<h3>Round durations and the slowest device</h3>") != std::string::npos);
  CHECK(page.find(std::to_string(read_csv(run / "rounds.csv").size()) + " rounds (rounds.csv)") != std::string::npos);
  CHECK(page.find("<td>energy_j</td><td>12.5</td>") != std::string::npos);
  double peak = 0;  // the fleet total is buffers_fleet.csv's
  for (const auto& row : read_csv(run / "buffers_fleet.csv")) peak = std::max(peak, num(row, "buffered_samples"));
  REQUIRE(peak > 1000);
  CHECK(page.find("fleet total: peak " + thousands(static_cast<int64_t>(peak)) + " samples") != std::string::npos);
  CHECK(page.find("Not drawn: no evaluations in metrics.csv (a timing-only run).") != std::string::npos);
  check_self_contained(page);
  check_unique_ids(page);
}

TEST_CASE("report: a sweep's page links each run of its table to the run's own section") {
  const fs::path sweep = fake_sweep("page");
  const Result r = run_cli("report " + sweep.string(), "report-sweep");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out == (sweep / "report.html").string() + "\n");
  const std::string page = slurp(sweep / "report.html");
  for (const std::string id : {"1", "2"}) {
    CAPTURE(id);
    CHECK(page.find(std::string("<a href=\"#run-") + id + "\">" + id + "</a>") != std::string::npos);
    CHECK(page.find(std::string("<section id=\"run-") + id + "\">") != std::string::npos);
  }
  CHECK(page.find("<h2>Run 2: training.mode = async, seed = 1</h2>") != std::string::npos);
  CHECK(page.find("<a href=\"#run-3\">3</a></td><td>local-sgd</td><td>1</td><td><span class=\"bad\">failed (exit status 1)</span>") !=
        std::string::npos);
  CHECK(page.find("No finished run in this folder (status: failed).") != std::string::npos);
  CHECK(page.find("1 run has no final_test_accuracy (not reached or failed).") != std::string::npos);
  // The sweep's figures (final accuracy and bytes up against the mode; seeds are averaged), and each
  // run's summary and bottleneck without its figures, which --run-figures adds: 7 for the sync run
  // (rounds), 7 for the async one (staleness).
  CHECK(page.find("<h3>final_test_accuracy against training.mode</h3>") != std::string::npos);
  CHECK(occurrences(page, "<svg ") == 2);
  CHECK(occurrences(page, "<th>limiting link</th>") == 1);
  // The limiting link: the critical path's (the link of the device that most often closed a round).
  const auto first = read_json(sweep / "runs/1/summary.json");
  const std::string link = first["bottleneck"]["critical_path"]["link"].get<std::string>();
  CHECK(page.find("<td>" + link + " (slowest in ") != std::string::npos);
  CHECK(page.find("edgetrain report " + (sweep / "runs/1").string()) != std::string::npos);
  check_self_contained(page);
  check_unique_ids(page);
  const Result full = run_cli("report " + sweep.string() + " --run-figures -o " + (sweep / "full.html").string(),
                              "report-sweep-full");
  REQUIRE_MESSAGE(full.status == 0, full.err);
  const std::string whole = slurp(sweep / "full.html");
  CHECK(occurrences(whole, "<svg ") == 2 + 7 + 7);
  CHECK(whole.size() > page.size() * 3);
  check_unique_ids(whole);
  const Result bad = run_cli("report " + sweep.string() + " --by colour", "report-sweep-bad");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--by colour: not a column of") != std::string::npos);
}

TEST_CASE("report: a run on a platform with wattages adds energy per device and accuracy against energy") {
  const fs::path run = fresh_dir("plot-run-energy") / "run";
  const Result r = run_cli("run " + (kData / "two-devices.json").string() + " --quiet --out " + run.string() +
                               " --set platform=energy.xml --set 'devices=[\"dev-a\",\"dev-b\",\"dev-c\"]'"
                               " --set stop.target_accuracy=0.5 --set stop.rounds=200 --set eval.every_s=0.1",
                           "report-energy-run");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const std::string page = report_of(run, "energy");
  CHECK(page.find("<h3>Energy per device</h3>") != std::string::npos);
  CHECK(page.find("<h3>Test accuracy against energy consumed so far</h3>") != std::string::npos);
  CHECK(page.find("not shown") != std::string::npos);  // dev-c has no wattage
  const double to_target = read_json(run / "summary.json")["energy"]["energy_to_target_j"];
  CHECK(page.find(mbps_text(to_target, " J</title>", "<title>energy to target: %.4g")) != std::string::npos);
  const double dev_a = std::stod(read_csv(run / "devices.csv")[0].at("energy_j"));
  CHECK(page.find(mbps_text(dev_a, " J</title>", "<title>dev-a: %.4g")) != std::string::npos);
  check_self_contained(page);
  check_unique_ids(page);
}

TEST_CASE("report: the selections section names the devices the slowest rounds went on without") {
  // d5..d8 at a quarter of the speed and a timeout between the two halves: every round times them out.
  const fs::path run = fresh_dir("report-selections-run");
  const Result r = run_cli("run " + (kData / "eight-devices.json").string() + " --out " + run.string() +
                               " --quiet --set training.compute=timing-only --set stop.rounds=4"
                               " --set training.round_timeout_s=0.03 --set platform.hosts.d8.speed=2.5Mf",
                           "report-selections-run");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const std::string page = report_of(run, "selections");
  CHECK(page.find("<a href=\"#selections\">selections</a>") != std::string::npos);
  CHECK(page.find("<h3 id=\"selections\">Selections</h3>") != std::string::npos);
  CHECK(page.find("d8 (timed-out)") != std::string::npos);
  CHECK(page.find("d1 (") == std::string::npos);  // the fast devices were never short of a round
  check_unique_ids(page);
}
