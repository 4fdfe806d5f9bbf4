// training.deadline: the fixed timeout, and FedBalancer's predicted deadline (round_deadline.hpp), as
// arithmetic and in a whole run on tests/sim/data/two-devices.json.
#include <doctest/doctest.h>

#include "sim/aggregate/round_deadline.hpp"
#include "two_devices.hpp"

using edgetrain::sim::RoundDeadline;
using namespace test;

TEST_CASE("deadline: fixed is round_timeout_s whatever was seen") {
  RoundDeadline fixed("fixed", 2.5, 3);
  fixed.observed(0, 0.1);
  CHECK(fixed.timeout(0, {true, true, true}) == 2.5);
  CHECK_FALSE(RoundDeadline("fixed", std::nullopt, 2).timeout(0, {true, true}));
}

TEST_CASE("deadline: fedbalancer picks the deadline of the most updates per second") {
  RoundDeadline d("fedbalancer", std::nullopt, 4);
  CHECK_FALSE(d.timeout(0, {true, true, true, true}));  // nothing seen: no deadline (no timeout given)
  d.observed(0, 1.0);
  d.observed(1, 1.5);
  d.observed(2, 4.0);
  d.observed(3, 10.0);
  // Rates: 1/1 = 1, 2/1.5 = 1.33, 3/4 = 0.75, 4/10 = 0.4: D = 1.5.
  CHECK(*d.timeout(0, {true, true, true, true}) == doctest::Approx(1.5));
  // Only the slow two picked: 1/4 against 2/10: D = 4.
  CHECK(*d.timeout(0, {false, false, true, true}) == doctest::Approx(4.0));
  // A never-timed device counts at the slowest time: 1/1 = 1 against (2 + 1)/1.5 = 2 with member 1 unseen.
  RoundDeadline u("fedbalancer", std::nullopt, 3);
  u.observed(0, 1.0);
  u.observed(1, 1.5);
  CHECK(*u.timeout(0, {true, true, true}) == doctest::Approx(1.5));
}

TEST_CASE("deadline: fedbalancer never passes round_timeout_s, and uses it before any time is seen") {
  RoundDeadline d("fedbalancer", 3.0, 2);
  CHECK(*d.timeout(0, {true, true}) == 3.0);
  d.observed(0, 5.0);
  d.observed(1, 6.0);
  CHECK(*d.timeout(0, {true, true}) == 3.0);
  d.observed(0, 1.0);
  CHECK(*d.timeout(0, {true, false}) == doctest::Approx(1.0));
}

TEST_CASE("deadline: a fedbalancer run closes rounds at the predicted deadline and says so in rounds.csv") {
  const fs::path out = run_two_devices("deadline-fedbalancer", "--set training.deadline=fedbalancer --set stop.rounds=12");
  const auto rounds = read_csv(out / "rounds.csv");
  REQUIRE(rounds.size() >= 12);
  // The first round: no round time seen yet, no timeout given (an empty last cell).
  CHECK((rounds[0].count("timeout_s") == 0 || rounds[0].at("timeout_s").empty()));
  // dev-b's round takes about 13 ms, dev-a's about 27 ms: one update in 13 ms beats two in 27 ms, so
  // from the second round on, dev-a is cut and its updates arrive late.
  for (size_t r = 1; r < rounds.size(); ++r) {
    REQUIRE_FALSE(rounds[r].at("timeout_s").empty());
    // The round waits until its deadline, then aggregates (the server's FLOPs: well under a microsecond).
    CHECK(num(rounds[r], "duration_s") <= num(rounds[r], "timeout_s") + 1e-6);
  }
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["late_pushes"].get<int64_t>() > 0);
  CHECK(num(rounds[1], "timeout_s") < 0.5 * num(rounds[0], "duration_s") + 1e-3);  // dev-b's time, not dev-a's
  const auto& p = summary["participation"];
  CHECK(p["selected"].get<int64_t>() == p["aggregated"].get<int64_t>() + p["late"].get<int64_t>() +
                                            p["failed"].get<int64_t>() + p["missing"].get<int64_t>() +
                                            p["discarded"].get<int64_t>());
  // Without it, every round waits for both devices: nothing late.
  const fs::path fixed = run_two_devices("deadline-fixed", "--set stop.rounds=12");
  CHECK(read_json(fixed / "summary.json")["late_pushes"] == 0);
  CHECK(read_csv(fixed / "rounds.csv")[0].count("timeout_s") == 0);
}
