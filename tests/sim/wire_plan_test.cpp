// What `edgetrain validate` promises before a run (sim/core/wire_plan.hpp) against what the run then
// does: each direction's message, a round's bytes and the epsilon spent by the stop condition.
#include <doctest/doctest.h>

#include <regex>
#include <string>

#include "cli_helpers.hpp"

using namespace test;

namespace {

const std::string kEight = (kData / "eight-devices.json").string();

// The validate output's number after `prefix` (the first match of `prefix` then digits).
double number_after(const std::string& text, const std::string& prefix) {
  const std::regex pattern(prefix + "([0-9.e+-]+)");
  std::smatch m;
  REQUIRE(std::regex_search(text, m, pattern));
  return std::stod(m[1].str());
}

}  // namespace

TEST_CASE("validate: each direction's message and a round's bytes are what the run sends") {
  const std::string sets = " --set training.compute=timing-only --set stop.rounds=3 --set compression.kind=int8"
                           " --set 'compression.downlink={\"kind\":\"topk-1%\"}'";
  const Result v = run_cli("validate " + kEight + sets, "wire-plan-validate");
  REQUIRE(v.status == 0);
  INFO(v.out);
  const double up = number_after(v.out, "messages: uplink ");
  const double delta = number_after(v.out, "then model deltas of ");
  const double dense = number_after(v.out, "the dense model ");
  const double round_bytes = number_after(v.out, R"(a round: 8 devices picked x \(uplink \+ downlink\) = )");
  CHECK(v.out.find("uplink    int8 = qsgd") != std::string::npos);
  const fs::path out = run_ok("eight-devices.json", sets, "wire-plan-run");
  const auto rounds = read_csv(out / "rounds.csv");
  REQUIRE(rounds.size() == 3);
  for (const auto& r : rounds) CHECK(num(r, "bytes_up") == 8 * up);
  CHECK(num(rounds[0], "bytes_down") == 8 * dense);  // each device's first model is dense
  CHECK(num(rounds[1], "bytes_down") == 8 * delta);
  CHECK(num(rounds[1], "bytes_up") + num(rounds[1], "bytes_down") == round_bytes);
}

TEST_CASE("validate: the epsilon it prints is the one the run spends, and where stop.epsilon stops it") {
  const std::string sets = " --set training.compute=timing-only --set 'privacy.dp={\"clip\":1,\"noise_multiplier\":1.1}'"
                           " --set 'training.selection={\"kind\":\"random\",\"per_round\":4}'";
  const Result v = run_cli("validate " + kEight + sets + " --set stop.rounds=7", "wire-plan-dp-validate");
  REQUIRE(v.status == 0);
  INFO(v.out);
  const double planned = number_after(v.out, "privacy: epsilon ");
  CHECK(v.out.find("after 7 rounds (stop.rounds)") != std::string::npos);
  const fs::path out = run_ok("eight-devices.json", sets + " --set stop.rounds=7", "wire-plan-dp-run");
  const double spent = read_json(out / "summary.json")["privacy"]["epsilon"].get<double>();
  CHECK(planned == doctest::Approx(spent).epsilon(5e-4));  // printed to 4 digits
  // A budget: validate names the round it stops after, and the run stops there.
  const Result b = run_cli("validate " + kEight + sets + " --set stop.rounds=null --set stop.sim_time_s=1000 --set stop.epsilon=" +
                               std::to_string(spent),
                           "wire-plan-budget-validate");
  REQUIRE(b.status == 0);
  INFO(b.out);
  const double rounds = number_after(b.out, R"(privacy: epsilon [0-9.e+-]+ at delta [0-9.e+-]+ after )");
  CHECK(b.out.find("stops the run there") != std::string::npos);
  const fs::path capped = run_ok("eight-devices.json",
                                 sets + " --set stop.rounds=null --set stop.sim_time_s=1000 --set stop.epsilon=" + std::to_string(spent), "wire-plan-budget-run");
  CHECK(read_json(capped / "summary.json")["rounds"].get<double>() == rounds);
  // stop.rounds may be 10^12: validate accounts the first 10^5 and says so, rather than compose them all.
  const Result far = run_cli("validate " + kEight + sets + " --set stop.rounds=1000000000000", "wire-plan-far");
  REQUIRE(far.status == 0);
  CHECK(far.out.find("after 100000 rounds (the first 100000 of stop.rounds 1000000000000, as far as validate "
                     "accounts; each round spends more)") != std::string::npos);
}

TEST_CASE("validate: the epsilon it prints holds for distributed noise, a Poisson draw and local noise") {
  // Distributed noise on the eight devices, and a Poisson draw on 1,000 (on eight, a round drawing no one is
  // refused): validate's epsilon is the run's.
  const std::string distributed = " --set training.compute=timing-only --set stop.rounds=7"
                                  " --set 'privacy.dp={\"clip\":1,\"noise_multiplier\":1.1,\"placement\":\"distributed\"}'"
                                  " --set 'training.selection={\"kind\":\"random\",\"per_round\":4}'";
  const std::string fleet = (kSource / "scenarios/privacy/dp-fleet.json").string();
  const std::string poisson = " --set training.compute=timing-only --set stop.rounds=5 --set privacy.dp.sampling=poisson";
  for (const auto& [scenario, sets] : {std::pair{kEight, distributed}, std::pair{fleet, poisson}}) {
    CAPTURE(sets);
    const Result v = run_cli("validate " + scenario + sets, "wire-plan-placement-validate");
    REQUIRE(v.status == 0);
    const fs::path out = fresh_dir("wire-plan-placement-run");
    REQUIRE(run_cli("run " + scenario + sets + " --quiet --out " + out.string(), "wire-plan-placement-run").status == 0);
    CHECK(number_after(v.out, "privacy: epsilon ") ==
          doctest::Approx(read_json(out / "summary.json")["privacy"]["epsilon"].get<double>()).epsilon(5e-4));
  }
  // Local noise, four of eight a round: validate counts a device released every round, the worst device of
  // any draw, so the run's epsilon (its most released device) is at most that.
  const std::string local = " --set training.compute=timing-only --set stop.rounds=7"
                            " --set 'privacy.dp={\"clip\":1,\"noise_multiplier\":3,\"placement\":\"local\"}'"
                            " --set 'training.selection={\"kind\":\"random\",\"per_round\":4}'";
  const Result v = run_cli("validate " + kEight + local, "wire-plan-local-validate");
  REQUIRE(v.status == 0);
  const fs::path out = run_ok("eight-devices.json", local, "wire-plan-local-run");
  CHECK(read_json(out / "summary.json")["privacy"]["epsilon"].get<double>() <=
        number_after(v.out, "privacy: epsilon ") * (1 + 5e-4));
}
