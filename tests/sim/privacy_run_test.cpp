// Whole runs with differential privacy (privacy.dp, docs/explanation/privacy.md) on
// tests/sim/data/two-devices.{json,xml}: what DP costs in bytes and simulated time by placement and
// order (computed by hand, as tests/sim/compression_run_test.cpp does), the epsilon each run reports
// against the Renyi-DP accountant composed here round by round with the mechanism the placement and
// sampling imply, the stop.epsilon budget, that noise hurts the model, and that the noise does not
// depend on the thread count.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <vector>

#include "privacy/rdp_accountant.hpp"
#include "two_devices.hpp"

using namespace test;
using edgetrain::privacy::RdpAccountant;
using edgetrain::privacy::Sampling;

namespace {

constexpr double kDelta = 1e-5;  // privacy.dp.delta's default
constexpr double kZ = 1.0;       // privacy.dp.noise_multiplier's default

// top-k 1% per layer of 1024, 16, 64 and 4 entries: k = 10, 1, 1, 1, each 4 value + 4 index bytes.
constexpr double kTopkMessage = 8 * (10 + 1 + 1 + 1) + kHeader;
const std::string kTopk = "--set compression.kind=topk --set compression.ratio=0.01 ";

std::string dp(const std::string& json) { return "--set 'privacy.dp=" + json + "' "; }

// The slowest device's down + compute + up, plus the server's apply, per round (all devices each round).
double round_time(double up_bytes) {
  double slowest = 0;
  for (const Device& d : kDevices) {
    slowest = std::max(slowest, transfer_s(d.down) + compute_s(d) + transfer_s(d.up, up_bytes));
  }
  return slowest + apply_s(2);
}

// epsilon at kDelta after each of `rounds` steps of (z, q): element r-1 after r rounds.
std::vector<double> epsilons(Sampling sampling, double z, double q, int rounds) {
  RdpAccountant accountant(sampling);
  std::vector<double> out;
  for (int r = 0; r < rounds; ++r) {
    accountant.compose(z, q);
    out.push_back(accountant.epsilon(kDelta).epsilon);
  }
  return out;
}

// The epsilon column of rounds.csv, one value per applied round.
std::vector<double> round_epsilons(const fs::path& out) {
  std::vector<double> eps;
  for (const auto& row : read_csv(out / "rounds.csv")) {
    if (row.at("applied") == "1") eps.push_back(num(row, "epsilon"));
  }
  return eps;
}

void check_epsilons(const fs::path& out, const std::vector<double>& expected) {
  const std::vector<double> got = round_epsilons(out);
  REQUIRE(got.size() == expected.size());
  for (size_t r = 0; r < got.size(); ++r) {
    CAPTURE(r);
    CHECK(got[r] == doctest::Approx(expected[r]).epsilon(1e-12));
  }
  const auto s = read_json(out / "summary.json");
  CHECK(s["privacy"]["epsilon"].get<double>() == doctest::Approx(expected.back()).epsilon(1e-12));
  CHECK(s["privacy"]["dp"]["releases_accounted"] == static_cast<int64_t>(expected.size()));
}

std::string header(const fs::path& file) { return lines_of(slurp(file)).at(0); }
bool has_epsilon_column(const fs::path& file) { return header(file).find(",epsilon") != std::string::npos; }

std::string four_digits(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

}  // namespace

TEST_CASE("privacy: central DP with top-k costs no bytes or time, epsilon per round is the accountant's") {
  const fs::path plain = run_two_devices("dp-central-plain", kTopk);
  const fs::path central = run_two_devices("dp-central", kTopk + dp("{\"noise_multiplier\":1}"));
  const auto p = read_json(plain / "summary.json"), c = read_json(central / "summary.json");
  // The noise is the aggregator's, on the decoded sum: the devices send top-k as without DP.
  CHECK(c["bytes_up"] == 2 * kRounds * kTopkMessage);
  CHECK(c["bytes_up"] == p["bytes_up"]);
  CHECK(c["bytes_down"] == p["bytes_down"]);
  CHECK(c["sim_time_s"].get<double>() == doctest::Approx(kRounds * round_time(kTopkMessage)).epsilon(1e-9));
  CHECK(c["sim_time_s"] == p["sim_time_s"]);
  CHECK(c["rounds"] == kRounds);
  // All devices every round: q = 1, neighbours by adding or removing a device (sensitivity clip).
  const std::vector<double> expected = epsilons(Sampling::fixed_size, kZ, 1.0, static_cast<int>(kRounds));
  check_epsilons(central, expected);
  CHECK(expected.front() > 0);
  CHECK(c["privacy"]["delta"] == kDelta);
  CHECK(c["privacy"]["dp"]["placement"] == "central");
  CHECK(c["privacy"]["dp"]["order"] == "clip_compress_noise");
  CHECK(c["privacy"]["dp"]["sampling"] == "fixed_size");
  CHECK(c["privacy"]["dp"]["clip"] == 1.0);
  CHECK(c["privacy"]["dp"]["noise_multiplier"] == kZ);
  // metrics.csv: epsilon 0 before the first round, the spent epsilon at the last evaluation.
  REQUIRE(has_epsilon_column(central / "metrics.csv"));
  const auto metrics = read_csv(central / "metrics.csv");
  REQUIRE(metrics.size() >= 2);
  CHECK(num(metrics.front(), "epsilon") == 0.0);
  CHECK(num(metrics.back(), "epsilon") == doctest::Approx(expected.back()).epsilon(1e-12));
  for (size_t i = 1; i < metrics.size(); ++i) CHECK(num(metrics[i], "epsilon") >= num(metrics[i - 1], "epsilon"));
  // Without DP: no epsilon column and no privacy key.
  CHECK(has_epsilon_column(central / "rounds.csv"));
  CHECK(!has_epsilon_column(plain / "rounds.csv"));
  CHECK(!has_epsilon_column(plain / "metrics.csv"));
  CHECK(!p.contains("privacy"));
}

TEST_CASE(
    "privacy: device noise after compression goes dense, before it keeps top-k's bytes, timing-only agrees") {
  const std::string after = kTopk + dp("{\"placement\":\"distributed\",\"order\":\"clip_compress_noise\"}");
  const std::string before = kTopk + dp("{\"placement\":\"local\",\"order\":\"clip_noise_compress\"}");
  const std::string timing_only = " --set training.compute=timing-only";
  const auto a = read_json(run_two_devices("dp-dist-after", after) / "summary.json");
  const auto b = read_json(run_two_devices("dp-dist-before", before) / "summary.json");
  CHECK(a["bytes_up"] == 2 * kRounds * kDenseMessage);
  CHECK(a["sim_time_s"].get<double>() == doctest::Approx(kRounds * round_time(kDenseMessage)).epsilon(1e-9));
  CHECK(b["bytes_up"] == 2 * kRounds * kTopkMessage);
  CHECK(b["sim_time_s"].get<double>() == doctest::Approx(kRounds * round_time(kTopkMessage)).epsilon(1e-9));
  const auto at = read_json(run_two_devices("dp-dist-after-tonly", after + timing_only) / "summary.json");
  const auto bt = read_json(run_two_devices("dp-dist-before-tonly", before + timing_only) / "summary.json");
  CHECK(at["compute"] == "timing-only");
  for (const char* key : {"bytes_up", "bytes_down", "sim_time_s", "rounds"}) {
    CAPTURE(key);
    CHECK(at[key] == a[key]);
    CHECK(bt[key] == b[key]);
  }
  // Every update aggregated: the distributed sum carries the whole noise, accounted as central's; local DP
  // accounts each device's own updates, replace-one (z / 2).
  const std::vector<double> expected = epsilons(Sampling::fixed_size, kZ, 1.0, static_cast<int>(kRounds));
  CHECK(a["privacy"]["epsilon"].get<double>() == doctest::Approx(expected.back()).epsilon(1e-12));
  const std::vector<double> local = epsilons(Sampling::fixed_size, kZ / 2, 1.0, static_cast<int>(kRounds));
  CHECK(b["privacy"]["epsilon"].get<double>() == doctest::Approx(local.back()).epsilon(1e-12));
  CHECK(at["privacy"]["epsilon"] == a["privacy"]["epsilon"]);
}

TEST_CASE("privacy: a distributed round that aggregates fewer updates carries less noise and costs more epsilon") {
  // The round timeout closes each round before the slower dev-a's update arrives: one update of K = 2,
  // whose noise on the sum is z x clip x sqrt(1/2).
  const fs::path out = run_two_devices("dp-dist-short", "--set training.round_timeout_s=0.02 --set stop.rounds=4 " +
                                                            dp("{\"placement\":\"distributed\"}"));
  RdpAccountant accountant(Sampling::fixed_size);
  std::vector<double> expected;
  int short_rounds = 0;
  for (const auto& row : read_csv(out / "rounds.csv")) {
    if (row.at("applied") != "1") continue;
    const double updates = num(row, "updates");
    short_rounds += updates < 2;
    accountant.compose(kZ * std::sqrt(updates / 2), 1.0);
    expected.push_back(accountant.epsilon(kDelta).epsilon);
  }
  CHECK(short_rounds == 4);
  check_epsilons(out, expected);
  // Each such round costs what two full rounds do: the RDP of the Gaussian goes as 1 / z^2.
  CHECK(expected.front() == doctest::Approx(epsilons(Sampling::fixed_size, kZ, 1.0, 2).back()).epsilon(1e-9));
}

TEST_CASE("privacy: local DP accounts each device's own updates, replace-one (noise z/2 to the accountant)") {
  const fs::path out = run_two_devices("dp-local", dp("{\"placement\":\"local\",\"noise_multiplier\":2}"));
  CHECK(read_json(out / "summary.json")["rounds"] == kRounds);
  check_epsilons(out, epsilons(Sampling::fixed_size, 2.0 / 2, 1.0, static_cast<int>(kRounds)));
  // Noise z on each update with sensitivity 2 clip is weaker than noise z on a sum with sensitivity clip.
  const auto central =
      read_json(run_two_devices("dp-local-vs-central", dp("{\"noise_multiplier\":2}")) / "summary.json");
  CHECK(read_json(out / "summary.json")["privacy"]["epsilon"].get<double>() >
        central["privacy"]["epsilon"].get<double>());
}

TEST_CASE("privacy: one device of two per round: a fixed-size sample is replace-one") {
  const std::string one_of_two = "--set 'training.selection={\"kind\":\"random\",\"per_round\":1}' ";
  const fs::path fixed = run_two_devices("dp-fixed-size", one_of_two + dp("{\"noise_multiplier\":1}"));
  const auto s = read_json(fixed / "summary.json");
  CHECK(s["rounds"] == kRounds);
  for (const auto& row : read_csv(fixed / "rounds.csv")) CHECK(row.at("selected") == "1");
  check_epsilons(fixed, epsilons(Sampling::fixed_size, kZ / 2, 0.5, static_cast<int>(kRounds)));
}

TEST_CASE("privacy: sampling poisson draws each device with probability K/N and accounts add-or-remove") {
  // 1,000 devices, K = 100: rounds of varying size (an empty one has chance 0.9^1000).
  const fs::path out = fresh_dir("dp-poisson");
  const Result r = run_cli("run " + (kSource / "scenarios/privacy/dp-fleet.json").string() + " --quiet --out " +
                               out.string() +
                               " --set training.compute=timing-only --set stop.rounds=4"
                               " --set privacy.dp.sampling=poisson",
                           "dp-poisson");
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::set<std::string> sizes;
  for (const auto& row : read_csv(out / "rounds.csv")) {
    sizes.insert(row.at("selected"));
    CHECK(row.at("updates") == row.at("selected"));  // no cap: every update drawn is aggregated
  }
  CHECK(sizes.size() > 1);
  check_epsilons(out, epsilons(Sampling::poisson, kZ, 0.1, 4));
}

TEST_CASE("privacy: stop.epsilon ends the run before the round that would exceed the budget") {
  const std::vector<double> eps = epsilons(Sampling::fixed_size, kZ, 1.0, 4);
  const double budget = (eps[2] + eps[3]) / 2;  // above 3 rounds' epsilon, below 4's
  REQUIRE(budget > eps[2]);
  REQUIRE(budget < eps[3]);
  char set[96];
  std::snprintf(set, sizeof set, "--set stop.epsilon=%.17g --set stop.rounds=6 ", budget);
  const fs::path out = run_two_devices("dp-budget", std::string(set) + dp("{}"));
  const auto s = read_json(out / "summary.json");
  CHECK(s["status"] == "completed");
  CHECK(s["rounds"] == 3);
  CHECK(round_epsilons(out).size() == 3);
  const std::string reason = s["status_reason"].get<std::string>();
  CHECK(reason.starts_with("stop.epsilon reached"));
  CHECK(reason == "stop.epsilon reached: another round would take epsilon from " + four_digits(eps[2]) + " to " +
                      four_digits(eps[3]) + ", above " + four_digits(budget));
  CHECK(s["privacy"]["epsilon"].get<double>() == doctest::Approx(eps[2]).epsilon(1e-12));
  // A budget above what 6 rounds spend does not stop the run.
  const auto loose =
      read_json(run_two_devices("dp-budget-loose", "--set stop.epsilon=1000 " + dp("{}")) / "summary.json");
  CHECK(loose["rounds"] == kRounds);
  CHECK(loose["status_reason"] == "stop.rounds reached");
}

TEST_CASE("privacy: heavy noise hurts the model that the same run without DP trains") {
  const auto plain = read_json(run_two_devices("dp-noise-none", "--set stop.rounds=20") / "summary.json");
  const auto noisy = read_json(
      run_two_devices("dp-noise-50", "--set stop.rounds=20 " + dp("{\"noise_multiplier\":50}")) / "summary.json");
  REQUIRE(plain["status"] == "completed");
  if (noisy["status"] != "diverged") {
    CHECK(noisy["final_test_loss"].get<double>() > 2 * plain["final_test_loss"].get<double>());
  }
}

TEST_CASE("privacy: distributed noise is the same for 1 and 2 threads") {
  // Eight devices, four a round: the noise streams are per device and update, not per worker.
  const std::string sets = "--set training.selection.kind=random --set training.selection.per_round=4 " +
                           dp("{\"placement\":\"distributed\",\"noise_multiplier\":0.5}");
  std::vector<fs::path> outs;
  for (int threads : {1, 2}) {
    const fs::path out = fresh_dir("dp-threads-" + std::to_string(threads));
    const Result r = run_cli("run " + (kData / "eight-devices.json").string() + " --quiet --out " + out.string() +
                                 " --threads " + std::to_string(threads) + " " + sets,
                             "dp-threads-" + std::to_string(threads));
    INFO(r.err);
    REQUIRE(r.status == 0);
    outs.push_back(out);
  }
  CHECK(has_epsilon_column(outs[0] / "rounds.csv"));
  for (const char* f : {"rounds.csv", "metrics.csv", "devices.csv"}) {
    CAPTURE(f);
    const std::string one = slurp(outs[0] / f);
    CHECK(!one.empty());
    CHECK(one == slurp(outs[1] / f));
  }
  // The noise moved the model: not the run without DP.
  const fs::path plain = run_ok("eight-devices.json",
                                "--set training.selection.kind=random "
                                "--set training.selection.per_round=4",
                                "dp-threads-plain");
  CHECK(slurp(plain / "metrics.csv") != slurp(outs[0] / "metrics.csv"));
}

TEST_CASE("privacy: a bad privacy key on the command line exits 2 with one line naming it") {
  const struct {
    std::string sets, message;
  } cases[] = {
      {dp("{\"noise_multiplier\":0}"), "privacy.dp.noise_multiplier: must be in (0, 100], got 0"},
      {dp("{\"placement\":\"central\",\"order\":\"clip_noise_compress\"}"),
       "privacy.dp.order: clip_noise_compress is not defined with placement central"},
      {"--set stop.epsilon=1", "stop.epsilon: needs privacy.dp"},
      {dp("{}") + "--set training.mode=async", "privacy.dp: needs synchronous rounds"},
  };
  int k = 0;
  for (const auto& c : cases) {
    CAPTURE(c.sets);
    const std::string tag = "dp-bad-" + std::to_string(k++);
    const Result r = run_cli(
        "run " + (kData / "two-devices.json").string() + " --quiet --out " + fresh_dir(tag).string() + " " + c.sets,
        tag);
    CHECK(r.status == 2);
    const auto lines = lines_of(r.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].find(c.message) != std::string::npos);
  }
}
