// Client selection in synchronous rounds (training.selection): seeded, exact counts, and `all`
// exactly today's behaviour.
#include "sim/selection.hpp"

#include <doctest/doctest.h>

#include "cli_helpers.hpp"
#include "scenario/error.hpp"

using namespace test;

namespace {

fs::path run_eight(const std::string& tag, const std::string& sets) {
  const fs::path out = fresh_dir(tag);
  const Result r = run_cli("run " + (kData / "eight-devices.json").string() + " --quiet --out " + out.string() +
                               " --set training.compute=timing-only " + sets,
                           tag);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return out;
}

}  // namespace

TEST_CASE("selection: a seeded uniform sample of per_round devices each round, every round its own") {
  edgetrain::scenario::SelectionSpec spec{"random", 3, 0};
  const edgetrain::sim::RoundSelection a(spec, 7, 10), b(spec, 7, 10), other(spec, 8, 10);
  std::vector<int64_t> times(10, 0);
  bool differs = false;
  for (int64_t round = 0; round < 200; ++round) {
    const auto pick = a.pick(round);
    CHECK(pick == b.pick(round));  // the same seed, the same pick
    differs = differs || pick != other.pick(round);
    CHECK(std::count(pick.begin(), pick.end(), true) == 3);
    for (size_t m = 0; m < pick.size(); ++m) times[m] += pick[m] ? 1 : 0;
  }
  CHECK(differs);
  // Uniform: each of 10 devices is picked 3/10 of 200 rounds, 60 times on average.
  for (int64_t t : times) CHECK((t > 35 && t < 85));
  CHECK(edgetrain::sim::RoundSelection({"random", 0, 0.25}, 1, 10).per_round() == 3);  // 2.5 rounds to 3
  CHECK(edgetrain::sim::RoundSelection({"random", 0, 0.01}, 1, 10).per_round() == 1);  // at least one
  CHECK_THROWS_AS(edgetrain::sim::RoundSelection({"random", 11, 0}, 1, 10), edgetrain::scenario::ScenarioError);
}

TEST_CASE("selection: only selected devices compute and upload, counted exactly") {
  const fs::path out = run_eight("selection-run", "--set 'training.selection={\"kind\":\"random\",\"per_round\":3}'");
  const auto summary = read_json(out / "summary.json");
  const int64_t rounds = summary["rounds"].get<int64_t>();
  CHECK(summary["selection"] == "random");
  int64_t selected = 0, steps = 0;
  for (const auto& d : read_csv(out / "devices.csv")) {
    selected += count(d, "rounds_selected");
    steps += count(d, "steps");
    CHECK(count(d, "steps") == count(d, "rounds_selected"));  // no faults: every selected device delivers
  }
  CHECK(selected == 3 * rounds);
  CHECK(steps == 3 * rounds);
  for (const auto& r : read_csv(out / "rounds.csv")) {
    CHECK(count(r, "updates") == 3);
    CHECK(count(r, "missing") == 0);
  }
  CHECK(summary["missing_updates"] == 0);
  // The same seed gives the same files; a fraction of 0.5 picks 4 of the 8.
  const fs::path again =
      run_eight("selection-again", "--set 'training.selection={\"kind\":\"random\",\"per_round\":3}'");
  CHECK(slurp(out / "devices.csv") == slurp(again / "devices.csv"));
  const fs::path half =
      run_eight("selection-half", "--set 'training.selection={\"kind\":\"random\",\"fraction\":0.5}'");
  for (const auto& r : read_csv(half / "rounds.csv")) CHECK(count(r, "updates") == 4);
}

TEST_CASE("selection: kind all is every device every round, byte for byte the run without it") {
  const fs::path plain = run_eight("selection-plain", "");
  const fs::path all = run_eight("selection-all", "--set 'training.selection={\"kind\":\"all\"}'");
  for (const char* file : {"devices.csv", "links.csv", "rounds.csv"}) {
    CAPTURE(file);
    CHECK(slurp(plain / file) == slurp(all / file));
  }
  for (const auto& d : read_csv(plain / "devices.csv")) CHECK(count(d, "rounds_selected") == 12);
}
