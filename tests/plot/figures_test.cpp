// The figures a planner and a teacher put on slides: a sweep's figure per round against the swept
// value with one line per combination of the other swept keys, readable values and a target line
// (from sweep.csv's round_*_s columns, or derived from sim_time_s / rounds for an older sweep.csv);
// several runs overlaid; --dpi, --size and titles naming the run; integer ticks for counts.
#include <doctest/doctest.h>

#include <regex>
#include <tuple>

#include "plot_helpers.hpp"
#include "png_image.hpp"

using namespace test;

namespace {

// A sweep of three keys (compression, uplink, seed) as `edgetrain sweep` writes sweep.csv, with or
// without the round_*_s columns; no run folders (plot reads sweep.csv alone).
fs::path round_sweep(const std::string& tag, bool round_columns) {
  const fs::path dir = fresh_dir("figures-sweep-" + tag);
  std::string csv = "compression,platform.sites.metro.uplink.up,seed,status,status_reason,sim_time_s,rounds,";
  csv += round_columns ? "round_mean_s,round_median_s,round_p95_s,round_max_s," : "";
  csv += "bytes_up,folder\n";
  int id = 0;
  for (const std::string compression : {"null", "\"{\"\"kind\"\":\"\"topk\"\",\"\"ratio\"\":0.01}\""}) {
    for (const std::string uplink : {"1Gbps", "10Gbps"}) {
      for (int seed : {1, 2}) {
        // Rounds of 100 s dense, 50 s compressed; 10% faster on the fast uplink; seed 2 adds 2 s.
        const double mean = (compression == "null" ? 100.0 : 50.0) * (uplink == "1Gbps" ? 1.0 : 0.9) + 2 * (seed - 1);
        csv += compression + "," + uplink + "," + std::to_string(seed) + ",completed,stop.rounds reached," +
               std::to_string(mean * 4) + ",4,";
        if (round_columns) csv += std::to_string(mean) + "," + std::to_string(mean) + "," +
                                  std::to_string(mean * 1.5) + "," + std::to_string(mean * 2) + ",";
        csv += "1000,runs/" + std::to_string(++id) + "\n";
      }
    }
  }
  write_file(dir / "sweep.csv", csv);
  return dir;
}

// The text of every x tick label of an SVG figure (matplotlib keeps text as text: svg.fonttype none).
std::vector<std::string> xtick_labels(const std::string& svg) {
  std::vector<std::string> out;
  const std::regex tick(R"re(<g id="xtick_\d+">[\s\S]*?<text[^>]*>([^<]*)</text>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

}  // namespace

TEST_CASE("plot: a sweep's figure per round has a line per other swept key, readable values and a target line") {
  const fs::path sweep = round_sweep("rounds", true);
  const Result r = run_cli("plot " + sweep.string() + " --format svg --target round_s=60", "figures-rounds");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  // --target round_s marks every per-round figure and draws them without --y.
  const auto written = lines_of(r.out);
  REQUIRE(written.size() == 4);
  // File names keep the keys' last two segments: short enough for a slide deck's folder.
  const fs::path mean = sweep / "plots/sweep_round_mean_s_vs_compression_by_uplink.up.svg";
  CHECK(written[0] == mean.string());
  const std::string svg = slurp(mean);
  CHECK(xtick_labels(svg) == std::vector<std::string>{"null", "kind topk, ratio 0.01"});  // not raw JSON
  for (const std::string line : {">1Gbps<", ">10Gbps<", ">target ≤ 60<", ">mean round (s)<",
                                 "sweep edgetrain-test-figures-sweep-rounds: round_mean_s against compression"}) {
    CAPTURE(line);
    CHECK(svg.find(line) != std::string::npos);
  }
  CHECK(svg.find("{&quot;kind") == std::string::npos);
  CHECK(svg.find("derived") == std::string::npos);
  // Seeds are averaged: compressed on the fast uplink, 45 s and 47 s give a mean of 46 s.
  const Result page = run_cli("report " + sweep.string() + " --target round_s=60", "figures-rounds-report");
  REQUIRE_MESSAGE(page.status == 0, page.err);
  const std::string html = slurp(sweep / "report.html");
  CHECK(html.find("compression = kind topk, ratio 0.01, platform.sites.metro.uplink.up = 10Gbps: round_mean_s = 46 "
                  "(range 45 to 47 over 2 runs)") != std::string::npos);
  CHECK(html.find("Dashed: the target, round_mean_s ≤ 60; a dot meets it, a cross misses it.") != std::string::npos);
  CHECK(html.find("round_mean_s = 91 (range 90 to 92 over 2 runs): misses the target") != std::string::npos);
  CHECK(html.find("round_mean_s = 46 (range 45 to 47 over 2 runs): meets the target") != std::string::npos);
  // Bad targets: one line, exit 2.
  for (const auto& [target, message] : std::vector<std::pair<std::string, std::string>>{
           {"round_s", "--target round_s: expected COLUMN=NUMBER, COLUMN<=NUMBER or COLUMN>=NUMBER (e.g. round_s<=60)"},
           {"round_s=fast", "--target round_s=fast: expected COLUMN=NUMBER"},
           {"round_meen_s=60", "--target round_meen_s: not a column of " + (sweep / "sweep.csv").string() +
                                   " (did you mean \"round_mean_s\"?)"}}) {
    CAPTURE(target);
    const Result bad = run_cli("plot " + sweep.string() + " --target " + target, "figures-bad-target");
    CHECK(bad.status == 2);
    CHECK(lines_of(bad.err).size() == 1);
    CHECK(bad.err.find(message) != std::string::npos);
  }
}

TEST_CASE("plot: labelled runs are a line each against the grid's key, and a target marks each point meets or misses") {
  // The planner's slide: four uplinks (a grid) x two options (labelled runs); the option's own key is
  // not a line of its own. Rounds: dense 100 s at 2Mbps falling to 60 s, int8 a quarter of the upload.
  const fs::path dir = fresh_dir("figures-labelled");
  std::string csv = "platform.link_classes.lte.up,compression.kind,label,status,status_reason,round_max_s,bytes_up,folder\n";
  int id = 0;
  for (const std::string uplink : {"2Mbps", "5Mbps", "10Mbps", "20Mbps"}) {
    const double mbps = std::stod(uplink);
    for (const auto& [kind, label, scale] : {std::tuple{"fp32", "fp32 (dense)", 1.0}, std::tuple{"qsgd", "int8", 0.25}}) {
      const double round = 50 + 100 * scale / mbps;
      csv += uplink + "," + kind + "," + label + ",completed,stop.rounds reached," + std::to_string(round) +
             ",1000,runs/" + std::to_string(++id) + "\n";
    }
  }
  write_file(dir / "sweep.csv", csv);
  write_file(dir / "sweep.json",
             R"({"varied": ["platform.link_classes.lte.up", "compression.kind"], "grid_keys": ["platform.link_classes.lte.up"], "runs": []})");
  const Result r = run_cli("plot " + dir.string() + " --format svg --y round_max_s --target 'round_max_s<=80'",
                           "figures-labelled");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const fs::path figure = dir / "plots/sweep_round_max_s_vs_lte.up_by_label.svg";
  CHECK(lines_of(r.out) == std::vector<std::string>{figure.string()});
  const std::string svg = slurp(figure);
  for (const std::string text : {">fp32 (dense)<", ">int8<", ">target ≤ 80<", ">2Mbps<", ">20Mbps<"}) {
    CAPTURE(text);
    CHECK(svg.find(text) != std::string::npos);
  }
  CHECK(svg.find(">label<") == std::string::npos);  // labels name themselves: no legend title
  CHECK(svg.find("compression.kind") == std::string::npos);
  const Result page = run_cli("report " + dir.string() + " --y round_max_s --target 'round_max_s<=80'", "figures-labelled-page");
  REQUIRE_MESSAGE(page.status == 0, page.err);
  const std::string html = slurp(dir / "report.html");
  // fp32 at 2Mbps: 100 s misses; int8 at 2Mbps: 62.5 s meets.
  CHECK(html.find("platform.link_classes.lte.up = 2Mbps, label = fp32 (dense): round_max_s = 100: misses the target") !=
        std::string::npos);
  CHECK(html.find("platform.link_classes.lte.up = 2Mbps, label = int8: round_max_s = 62.5: meets the target") !=
        std::string::npos);
  CHECK(occurrences(html, "<span class=\"bad\">misses</span>") == 1);  // the runs table: fp32 at 2Mbps only
  // A floor on a figure where more is better.
  const Result floor = run_cli("plot " + dir.string() + " --format svg --y round_max_s --target 'round_max_s>=70'",
                               "figures-labelled-floor");
  REQUIRE_MESSAGE(floor.status == 0, floor.err);
  CHECK(slurp(figure).find(">target ≥ 70<") != std::string::npos);
}

TEST_CASE("plot: an older sweep.csv without round columns gets the mean round from sim_time_s / rounds, said so") {
  const fs::path sweep = round_sweep("derived", false);
  const Result r = run_cli("report " + sweep.string(), "figures-derived");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const std::string html = slurp(sweep / "report.html");
  CHECK(html.find("<h3>round_mean_s against compression, by platform.sites.metro.uplink.up</h3>") != std::string::npos);
  CHECK(html.find("round_mean_s is derived as sim_time_s / rounds: this sweep.csv has no round_mean_s column.") !=
        std::string::npos);
  CHECK(html.find("mean round (s), sim_time_s / rounds") != std::string::npos);  // the axis says it too
  // Dense on 1Gbps: 400 s and 408 s over 4 rounds for seeds 1 and 2.
  CHECK(html.find("round_mean_s = 101 (range 100 to 102 over 2 runs)") != std::string::npos);
  const std::string zwsp = "\xe2\x80\x8b";  // where a long header may break
  CHECK(html.find("<th>round_" + zwsp + "mean_" + zwsp + "s</th>") != std::string::npos);  // in the runs table
  // --by none: one line, every other key averaged.
  const Result one = run_cli("plot " + sweep.string() + " --y round_mean_s --by none --format svg", "figures-by-none");
  REQUIRE_MESSAGE(one.status == 0, one.err);
  CHECK(one.out == (sweep / "plots/sweep_round_mean_s_vs_compression.svg").string() + "\n");
}

TEST_CASE("plot: several runs overlay their accuracy against time and bytes, each named in the legend") {
  const fs::path a = tiny_run("overlay-sync"), b = tiny_run("overlay-async", "--set training.mode=async");
  const fs::path out = fresh_dir("figures-overlay");
  const Result r = run_cli("plot " + a.string() + " " + b.string() + " --out " + out.string() +
                               " --format svg --label IID --label 'non-IID'",
                           "figures-overlay");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out == (out / "overlay_accuracy_time.svg").string() + "\n" + (out / "overlay_accuracy_bytes.svg").string() + "\n");
  for (const std::string name : {"overlay_accuracy_time", "overlay_accuracy_bytes"}) {
    CAPTURE(name);
    const std::string svg = slurp(out / (name + ".svg"));
    CHECK(svg.find(">IID<") != std::string::npos);
    CHECK(svg.find(">non-IID<") != std::string::npos);
    CHECK(occurrences(svg, "id=\"line2d_") > 2);
  }
  // Without --label the runs' names (both "eight-devices" here: the folders tell them apart).
  const Result named = run_cli("plot " + a.string() + " " + b.string() + " --out " + out.string() + " --format svg",
                               "figures-overlay-named");
  REQUIRE_MESSAGE(named.status == 0, named.err);
  CHECK(slurp(out / "overlay_accuracy_time.svg").find(">" + a.string() + "<") != std::string::npos);
  const fs::path sweep = round_sweep("overlay", true);
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {a.string() + " " + b.string() + " --label one", "--label given 1 times for 2 runs"},
           {a.string() + " --label one", "--label applies to several runs only"},
           {a.string() + " " + sweep.string(), sweep.string() + ": a sweep folder; several folders are overlaid as runs"},
           {a.string() + " --dpi 5", "argument --dpi: expected a whole number from 30 to 1200, got '5'"},
           {a.string() + " --size 10by5", "argument --size: expected WIDTHxHEIGHT in inches"}}) {
    CAPTURE(args);
    const Result bad = run_cli("plot " + args, "figures-overlay-bad");
    CHECK(bad.status == 2);
    CHECK(lines_of(bad.err).size() == 1);
    CHECK(bad.err.find(message) != std::string::npos);
  }
}

TEST_CASE("plot: --dpi and --size set the image, titles name the run, staleness has integer ticks") {
  const fs::path run = tiny_run("slides", "--set training.mode=async");
  const fs::path small = fresh_dir("figures-dpi-110"), large = fresh_dir("figures-dpi-220");
  REQUIRE(run_cli("plot " + run.string() + " --out " + small.string(), "figures-dpi-a").status == 0);
  REQUIRE(run_cli("plot " + run.string() + " --out " + large.string() + " --dpi 220", "figures-dpi-b").status == 0);
  const Image a = read_png(slurp(small / "accuracy_time.png")), b = read_png(slurp(large / "accuracy_time.png"));
  CHECK(b.width > a.width * 19 / 10);  // twice the dots per inch (the tight box rounds a little)
  CHECK(b.width < a.width * 21 / 10);
  const fs::path sized = fresh_dir("figures-size");
  REQUIRE(run_cli("plot " + run.string() + " --out " + sized.string() + " --size 12x4 --dpi 100", "figures-size").status ==
          0);
  const Image c = read_png(slurp(sized / "accuracy_time.png"));
  CHECK(c.width > 900);  // 12 inches at 100 dpi, trimmed to the drawn area (the default is 7.5 inches)
  CHECK(c.width <= 1200);
  const fs::path svgs = fresh_dir("figures-svg");
  REQUIRE(run_cli("plot " + run.string() + " --out " + svgs.string() + " --format svg", "figures-svg").status == 0);
  CHECK(slurp(svgs / "accuracy_time.svg").find(">eight-devices: Test accuracy against simulated time<") !=
        std::string::npos);
  const auto ticks = xtick_labels(slurp(svgs / "staleness.svg"));
  REQUIRE(!ticks.empty());
  for (const std::string& t : ticks) {
    CAPTURE(t);
    CHECK(std::regex_match(t, std::regex("[0-9]+|\\u2212[0-9]+")));  // no 0.5 or 1.5 updates
  }
}
