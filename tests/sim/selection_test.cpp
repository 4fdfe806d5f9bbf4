// Client selection in synchronous rounds (training.selection): seeded, exact counts, and `all`
// exactly today's behaviour.
#include "sim/aggregate/selection.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>

#include "cli_helpers.hpp"
#include "scenario/error.hpp"
#include "scenario/load.hpp"

using namespace test;

namespace {

edgetrain::scenario::SelectionSpec selection_spec(const std::string& kind, int64_t per_round, double fraction) {
  edgetrain::scenario::SelectionSpec spec = edgetrain::scenario::typed_defaults().training.selection;
  spec.kind = kind;
  spec.per_round = per_round;
  spec.fraction = fraction;
  return spec;
}

fs::path run_eight(const std::string& tag, const std::string& sets) {
  return run_ok("eight-devices.json", "--set training.compute=timing-only " + sets, tag);
}

}  // namespace

TEST_CASE("selection: a seeded uniform sample of per_round devices each round, every round its own") {
  using edgetrain::sim::RoundSelection;
  const auto spec = selection_spec("random", 3, 0);
  RoundSelection a(spec, 7, 10), b(spec, 7, 10), other(spec, 8, 10);
  std::vector<int64_t> times(10, 0);
  bool differs = false;
  for (int64_t round = 0; round < 200; ++round) {
    const auto pick = a.pick(round, {});
    CHECK(pick == b.pick(round, {}));  // the same seed, the same pick
    differs = differs || pick != other.pick(round, {});
    CHECK(std::count(pick.begin(), pick.end(), true) == 3);
    for (size_t m = 0; m < pick.size(); ++m) times[m] += pick[m] ? 1 : 0;
  }
  CHECK(differs);
  // Uniform: each of 10 devices is picked 3/10 of 200 rounds, 60 times on average.
  for (int64_t t : times) CHECK((t > 35 && t < 85));
  CHECK(RoundSelection(selection_spec("random", 0, 0.25), 1, 10).aggregates(10) == 3);  // 2.5 rounds to 3
  CHECK(RoundSelection(selection_spec("random", 0, 0.01), 1, 10).aggregates(10) == 1);  // at least one
  CHECK_THROWS_AS(RoundSelection(selection_spec("random", 11, 0), 1, 10), edgetrain::scenario::ScenarioError);
  // Over-selection: ceil(K (1 + eps)) picked, K aggregated; 10 x 1.1 is 11 despite float noise.
  auto over = selection_spec("random", 10, 0);
  over.over_selection = 0.1;
  RoundSelection with_over(over, 1, 20);
  const auto pick = with_over.pick(0, {});
  CHECK(std::count(pick.begin(), pick.end(), true) == 11);
  CHECK(with_over.aggregates(11) == 10);
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
  // Time out of the rounds: rounds run back to back over the whole run, so each device's time in the
  // rounds (sim_time_s - unselected_s) adds up to 3 devices x every round's duration. Without it every
  // device would be wait-bound (idle in the rounds it was not picked for); the timing-only devices
  // that took part are compute-bound, and one never picked took no part.
  const double end = summary["sim_time_s"].get<double>();
  double in_rounds = 0, durations = 0;
  int64_t none = 0;
  for (const auto& d : read_csv(out / "devices.csv")) {
    CAPTURE(d.at("device"));
    in_rounds += end - num(d, "unselected_s");
    CHECK(num(d, "unselected_s") <= num(d, "wait_s"));
    CHECK(d.at("bound") == (count(d, "rounds_selected") == 0 ? "none" : "compute"));
    none += count(d, "rounds_selected") == 0 ? 1 : 0;
  }
  for (const auto& r : read_csv(out / "rounds.csv")) durations += num(r, "duration_s");
  CHECK(durations == doctest::Approx(end).epsilon(1e-12));
  CHECK(in_rounds == doctest::Approx(3 * durations).epsilon(1e-9));
  const auto& bottleneck = summary["bottleneck"];
  CHECK(bottleneck["took_no_part"] == none);
  CHECK(bottleneck["devices"]["compute"] == 8 - none);
  CHECK(bottleneck["critical_path"]["class"] == "d");
  CHECK(bottleneck["critical_path"]["class_share_of_rounds"] == 1.0);
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

namespace {

edgetrain::scenario::SelectionSpec oort_spec(int64_t per_round, double exploration) {
  auto spec = selection_spec("oort", per_round, 0);
  spec.exploration = exploration;
  return spec;
}

// Slows d5..d8 to a quarter of d1..d4's speed (platform what-ifs).
const std::string kSlowHalf =
    " --set platform.hosts.d5.speed=2.5Mf --set platform.hosts.d6.speed=2.5Mf"
    " --set platform.hosts.d7.speed=2.5Mf --set platform.hosts.d8.speed=2.5Mf";

int64_t sum(const std::vector<std::map<std::string, std::string>>& rows, const std::string& key, size_t from,
            size_t to) {
  int64_t total = 0;
  for (size_t i = from; i < to; ++i) total += count(rows[i], key);
  return total;
}

// selections.csv against rounds.csv: a round's rows are its picks (and the stragglers it aggregated),
// each with one outcome, and they count what rounds.csv counts. Only a round the run's end abandoned
// has rows and no line of its own.
void check_selections_add_up(const fs::path& out) {
  const auto rounds = read_csv(out / "rounds.csv");
  std::map<std::pair<std::string, std::string>, std::map<std::string, int64_t>> outcomes;  // (round, start)
  for (const auto& row : read_csv(out / "selections.csv"))
    outcomes[{row.at("round"), row.at("round_start_s")}][row.at("outcome")] += 1;
  size_t matched = 0;
  for (const auto& r : rounds) {
    auto& o = outcomes[{r.at("round"), r.at("start_s")}];
    INFO("round " << r.at("round") << " at " << r.at("start_s"));
    const int64_t arrived = o["aggregated"] + o["straggler"] + o["discarded"];
    const int64_t unarrived = o["cut"] + o["timed-out"] + o["failed"] + o["off"] + o["busy"];
    CHECK(arrived == count(r, "updates"));
    // A straggler may also have been picked by this round (busy with the update it delivered).
    CHECK(arrived + unarrived >= count(r, "selected"));
    CHECK(o["aggregated"] + unarrived <= count(r, "selected"));
    if (count(r, "applied") == 1) CHECK(o["discarded"] == 0);
    if (count(r, "applied") == 0) CHECK(o["aggregated"] + o["straggler"] == 0);
    if (o["straggler"] == 0 && o["discarded"] == 0) CHECK(unarrived == count(r, "missing"));
    CHECK(o["abandoned"] == 0);
    matched += 1;
  }
  CHECK(outcomes.size() <= matched + 1);  // at most the abandoned round beyond rounds.csv
}

// Every selection ends one way, and the participation object agrees with the other outputs.
void check_participation_adds_up(const fs::path& out) {
  const auto summary = read_json(out / "summary.json");
  const auto& p = summary["participation"];
  INFO(p.dump());
  const auto devices = read_csv(out / "devices.csv");
  CHECK(p["selected"] == sum(devices, "rounds_selected", 0, devices.size()));
  CHECK(p["aggregated"] == sum(devices, "rounds_aggregated", 0, devices.size()));
  CHECK(p["selected"].get<int64_t>() == p["aggregated"].get<int64_t>() + p["late"].get<int64_t>() +
                                            p["failed"].get<int64_t>() + p["missing"].get<int64_t>() +
                                            p["discarded"].get<int64_t>());
  CHECK(p["late"] == summary["late_pushes"]);
  const auto rounds = read_csv(out / "rounds.csv");
  int64_t applied = 0, discarded = 0;  // updates of the rounds that applied them, and of those that did not
  for (const auto& r : rounds) (count(r, "applied") == 1 ? applied : discarded) += count(r, "updates");
  CHECK(p["aggregated"] == applied);
  CHECK(p["discarded"] == discarded);
  CHECK(summary["missing_updates"] == sum(rounds, "missing", 0, rounds.size()));
  int64_t never = 0;
  for (const auto& d : devices) never += count(d, "rounds_selected") == 0 ? 1 : 0;
  CHECK(p["devices_never_selected"] == never);
  check_selections_add_up(out);
}

}  // namespace

TEST_CASE("selection: oort is seeded, explores exactly its share of never-picked devices, then favours fast ones") {
  const auto spec = oort_spec(4, 0.25);  // one exploration pick a round
  edgetrain::sim::RoundSelection a(spec, 7, 16), b(spec, 7, 16), other(spec, 8, 16);
  const std::vector<bool> everyone(16, true);
  CHECK(a.pick(0, everyone) != other.pick(0, everyone));
  a = edgetrain::sim::RoundSelection(spec, 7, 16);
  std::vector<bool> seen(16, false);
  int64_t fast = 0, slow = 0;
  for (int64_t round = 0; round < 24; ++round) {
    CAPTURE(round);
    const auto pick = a.pick(round, everyone);
    CHECK(pick == b.pick(round, everyone));
    CHECK(std::count(pick.begin(), pick.end(), true) == 4);
    const auto unseen = std::count(seen.begin(), seen.end(), false);
    int64_t fresh = 0;
    for (size_t m = 0; m < 16; ++m) fresh += pick[m] && !seen[m] ? 1 : 0;
    // Round 0 knows nobody: every pick explores. Then exactly one a round while any is left.
    CHECK(fresh == (round == 0 ? 4 : std::min<int64_t>(unseen, 1)));
    for (size_t m = 0; m < 16; ++m) {
      if (!pick[m]) continue;
      seen[m] = true;
      if (round >= 13) (m < 8 ? fast : slow) += 1;  // every device explored by round 12
      // Members 8..15 take four times as long; losses differ so the statistical utility counts.
      const double time = m < 8 ? 1.0 : 4.0, loss = 1.0 + 0.1 * static_cast<double>(m);
      a.aggregated(m, 32, loss, time);
      b.aggregated(m, 32, loss, time);
    }
    a.round_closed();
    b.round_closed();
  }
  CHECK(std::count(seen.begin(), seen.end(), true) == 16);
  CHECK(fast > 3 * slow);
}

TEST_CASE("selection: oort in a run picks the slow half less once explored, the same way every time") {
  const std::string sets =
      "--set stop.rounds=30 --set 'training.selection={\"kind\":\"oort\",\"per_round\":2,"
      "\"exploration\":0.5}'" +
      kSlowHalf;
  const fs::path out = run_eight("selection-oort", sets);
  const auto devices = read_csv(out / "devices.csv");
  const int64_t fast = sum(devices, "rounds_selected", 0, 4), slow = sum(devices, "rounds_selected", 4, 8);
  CHECK(fast + slow == 2 * 30);
  for (const auto& d : devices) CHECK(count(d, "rounds_selected") >= 1);  // each explored
  CHECK(fast > 2 * slow);
  check_participation_adds_up(out);
  const fs::path again = run_eight("selection-oort-again", sets);
  CHECK(slurp(out / "devices.csv") == slurp(again / "devices.csv"));
  CHECK(slurp(out / "rounds.csv") == slurp(again / "rounds.csv"));
}

TEST_CASE("selection: available leaves out devices that are off or whose stream lacks a batch") {
  // d1 goes off in round 0 (rounds last 21 ms) for good; d2 streams 1 sample/s, so never holds a batch
  // of 16 in the run's 0.25 s.
  const fs::path out = run_eight(
      "selection-available",
      "--set 'training.selection={\"kind\":\"available\"}' --set training.round_timeout_s=10"
      " --set 'faults={\"devices\":[{\"device\":\"d1\",\"off_s\":[[0.01,1000]]}]}'"
      " --set 'devices=[\"d1\",{\"host\":\"d2\",\"stream\":{\"rate\":1}},\"d3\",\"d4\",\"d5\",\"d6\",\"d7\",\"d8\"]'");
  const auto summary = read_json(out / "summary.json");
  const auto& p = summary["participation"];
  CHECK(p["rounds"] == 12);
  const auto devices = read_csv(out / "devices.csv");
  CHECK(count(devices[0], "rounds_selected") == 1);  // round 0, while it was on
  CHECK(p["failed"] == 1);
  CHECK(count(devices[1], "rounds_selected") == 0);
  for (size_t i = 2; i < 8; ++i) CHECK(count(devices[i], "rounds_aggregated") == 12);
  const auto rounds = read_csv(out / "rounds.csv");
  for (size_t r = 1; r < rounds.size(); ++r) {
    CHECK(count(rounds[r], "selected") == 6);
    CHECK(count(rounds[r], "updates") == 6);
  }
  CHECK(p["devices_never_selected"] == 1);
  check_participation_adds_up(out);
}

TEST_CASE("selection: over-selection aggregates exactly K a round and counts the rest late") {
  const fs::path out = run_eight("selection-over",
                                 "--set stop.rounds=20 --set 'training.selection={\"kind\":"
                                 "\"random\",\"per_round\":3,\"over_selection\":0.5}'" +
                                     kSlowHalf);
  const auto summary = read_json(out / "summary.json");
  const auto rounds = read_csv(out / "rounds.csv");
  REQUIRE(rounds.size() == 20);
  for (const auto& r : rounds) {
    CHECK(count(r, "selected") == 5);  // ceil(3 x 1.5)
    CHECK(count(r, "updates") == 3);
    CHECK(count(r, "missing") == 2);
  }
  CHECK(summary["late_pushes"].get<int64_t>() > 0);
  CHECK(summary["late_pushes"] == sum(rounds, "late", 0, rounds.size()));
  CHECK(summary["participation"]["aggregated"] == 60);
  check_participation_adds_up(out);
}

TEST_CASE("selection: counters add up when devices fail mid-round") {
  // Every device every round; d1 goes off while its model is out, so is failed once and missing after.
  const fs::path out = run_eight("selection-faults",
                                 "--set training.round_timeout_s=10 --set stop.rounds=30"
                                 " --set 'faults={\"devices\":[{\"device\":\"d1\",\"off_s\":[[0.3,1000]]}]}'");
  const auto p = read_json(out / "summary.json")["participation"];
  CHECK(p["failed"].get<int64_t>() >= 1);
  CHECK(p["missing"].get<int64_t>() >= 1);
  check_participation_adds_up(out);
}

TEST_CASE("selection: min_updates extend waits past the timeout for the K-th update, skip applies nothing") {
  // d5..d8 take four times as long as d1..d4: a timeout between the two closes a round with 4 updates.
  const std::string sets = " --set stop.rounds=6 --set stop.sim_time_s=60 --set training.round_timeout_s=0.03" + kSlowHalf;
  const fs::path plain = run_eight("selection-min-none", sets);
  for (const auto& r : read_csv(plain / "rounds.csv")) CHECK(count(r, "updates") < 6);
  const fs::path extend = run_eight("selection-min-extend", sets + " --set 'training.selection={\"min_updates\":6}'");
  const auto extended = read_csv(extend / "rounds.csv");
  REQUIRE(extended.size() == 6);
  for (const auto& r : extended) {
    CHECK(count(r, "applied") == 1);
    CHECK(count(r, "updates") >= 6);
    CHECK(num(r, "duration_s") > 0.03);  // past its timeout
  }
  const auto e = read_json(extend / "summary.json");
  CHECK(e["rounds_extended"] == 6);
  CHECK(e["rounds_below_min"] == 0);
  check_participation_adds_up(extend);
  const fs::path skip =
      run_eight("selection-min-skip", sets + " --set 'training.selection={\"min_updates\":6,\"below_min\":\"skip\"}'");
  const auto s = read_json(skip / "summary.json");
  int64_t skipped = 0;
  for (const auto& r : read_csv(skip / "rounds.csv")) {
    CHECK(num(r, "duration_s") <= 0.03 + 1e-9);  // never past its timeout
    if (count(r, "updates") > 0 && count(r, "updates") < 6) {
      CHECK(count(r, "applied") == 0);  // below the minimum: nothing applied
      skipped += 1;
    } else if (count(r, "updates") >= 6) {
      CHECK(count(r, "applied") == 1);
    }
  }
  CHECK(skipped > 0);
  CHECK(s["rounds_below_min"] == skipped);
  CHECK(s["rounds"] == 6);  // rounds count applied updates only
  check_participation_adds_up(skip);
  // Reachable or refused: more than the devices, more than per_round.
  for (const char* bad : {"{\"min_updates\":9}", "{\"kind\":\"random\",\"per_round\":3,\"min_updates\":4}"}) {
    const Result r = run_cli("validate " + (kData / "eight-devices.json").string() + " --set 'training.selection=" +
                                 bad + "'",
                             "selection-min-bad");
    CHECK(r.status == 2);
    CHECK(lines_of(r.err).size() == 1);
    CHECK(r.err.find("training.selection.min_updates: ") != std::string::npos);
  }
}

TEST_CASE("selection: no round runs while every device is off, it starts when one comes back") {
  // Every device off from 0.05 s (during round 2 or so) to 0.5 s; rounds time out after 0.1 s.
  std::string off = "[";
  for (int d = 1; d <= 8; ++d) off += std::string(d > 1 ? "," : "") + "{\"device\":\"d" + std::to_string(d) + "\",\"off_s\":[[0.05,0.5]]}";
  off += "]";
  const fs::path out = run_eight("selection-all-off", "--set training.round_timeout_s=0.1 --set 'faults.devices=" + off + "'");
  const auto rounds = read_csv(out / "rounds.csv");
  int64_t empty = 0;
  for (const auto& r : rounds) {
    CHECK(!(num(r, "start_s") > 0.05 && num(r, "start_s") < 0.5));  // nobody to reach: no round
    empty += count(r, "updates") == 0 ? 1 : 0;
  }
  CHECK(empty <= 1);  // at most the round the devices left in the middle of
  CHECK(read_json(out / "summary.json")["rounds"] == 12);
  check_participation_adds_up(out);
}

TEST_CASE("selection: a bad selection key is one line and exit status 2") {
  // The other bad keys are checked in tests/scenario/validate_test.cpp, without a process each.
  const Result r = run_cli("validate " + (kData / "eight-devices.json").string() +
                               " --set 'training.selection={\"kind\":\"random\",\"per_round\":2,\"exploration\":0.2}'",
                           "selection-bad");
  CHECK(r.status == 2);
  CHECK(lines_of(r.err).size() == 1);
  CHECK(r.err.find("training.selection.exploration: allowed only when training.selection.kind is oort") !=
        std::string::npos);
}
