// Whole runs of buffered asynchrony (training.buffer_size, FedBuff) and of the SSP hold policy
// (training.staleness_policy hold): a buffer of one is today's async byte for byte, a buffer of K
// makes a version of every K pushes on the hand-computed schedule of tests/sim/data/async3.xml,
// and hold keeps every device within the bound of the slowest one that is on.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "cli_helpers.hpp"

using namespace test;

namespace {

const std::string kFourDevices =
    "--set 'devices=[\"dev-a\",\"dev-b\",{\"host\":\"dev-b\",\"name\":\"b2\"},"
    "{\"host\":\"dev-b\",\"name\":\"b3\"}]' --set training.start_jitter_s=0.002 "
    "--set eval.every_s=0.05 ";

// tests/sim/data/async3.xml: three devices whose cycles are 3, 4.1 and 5.3 ms of compute.
std::string async3(const std::string& sets) {
  return "--set platform=" + (kData / "async3.xml").string() + " --set 'devices=[\"c3\",\"c4\",\"c5\"]' " + sets;
}

// Per row of staleness.csv, how many pushes each device had delivered until then (itself included).
std::vector<std::map<std::string, int64_t>> push_counts(const fs::path& out) {
  std::vector<std::map<std::string, int64_t>> counts;
  std::map<std::string, int64_t> now = {{"c3", 0}, {"c4", 0}, {"c5", 0}};
  for (const auto& row : read_csv(out / "staleness.csv")) {
    now[row.at("device")] += 1;
    counts.push_back(now);
  }
  return counts;
}

// The golden files' training figures (evaluations over 200 test samples) come from the CPU that wrote
// them; another CPU's BLAS and ATen kernels move their low digits (docs/explanation/determinism.md). Everything
// else is the schedule (times, staleness, bytes, counts), which the training does not steer: counts and
// bytes exact, times to 1e-12 relative, because the goldens were written under SimGrid's Lazy network
// solver and runs use the Full one since (docs/explanation/time-model.md): the two add the
// same shares in another order, which moves the last binary digit of a time and nothing else.
bool same_figure(const std::string& column, const std::string& have, const std::string& want) {
  if (column.find("accuracy") != std::string::npos)
    return std::fabs(std::stod(have) - std::stod(want)) <= 0.005 + 1e-12;  // one of the 200 test samples
  if (column.find("loss") != std::string::npos)
    return std::fabs(std::stod(have) - std::stod(want)) <= 1e-4 * std::fabs(std::stod(want));
  const bool fraction = want.find_first_of(".eE") != std::string::npos && !want.empty() &&
                        want.find_first_not_of("0123456789.eE+-") == std::string::npos;
  if (fraction) return std::fabs(std::stod(have) - std::stod(want)) <= 1e-12 * std::fabs(std::stod(want));
  return have == want;
}

// `want` within `have`: every member of an object the golden file has (members added since aside),
// lists entry by entry, anything else equal.
bool holds(const nlohmann::json& have, const nlohmann::json& want) {
  if (want.is_object()) {
    if (!have.is_object()) return false;
    for (const auto& [key, value] : want.items())
      if (!have.contains(key) || !holds(have.at(key), value)) return false;
    return true;
  }
  if (want.is_array()) {
    if (!have.is_array() || have.size() != want.size()) return false;
    for (size_t i = 0; i < want.size(); ++i)
      if (!holds(have[i], want[i])) return false;
    return true;
  }
  if (want.is_number_float() && have.is_number()) return same_figure("", have.dump(), want.dump());
  return have == want;
}

}  // namespace

TEST_CASE("fedbuff: buffer_size 1 gives the outputs of plain async (schedule byte for byte)") {
  // tests/sim/data/async-k1/: the outputs of these two runs (real training, four devices, staleness up
  // to 5, momentum, drops by max_staleness, adacomp over top-k index sets) made by edgetrain before
  // buffered asynchrony existed (commit 0968e9a, on an AMD EPYC); summary.json without wall_time_s.
  // Plain async is no longer a separate path (buffer_size 1 is it), so these files are the reference:
  // every schedule figure exact, the training's losses and accuracies within what another CPU moves.
  const std::map<std::string, std::string> runs = {
      {"async",
       "--set training.mode=async --set stop.rounds=60 --set training.staleness_lr=inverse "
       "--set training.momentum=0.5 --set training.max_staleness=3"},
      {"local-sgd",
       "--set training.mode=local-sgd --set training.aggregation=async --set training.local_steps=3 "
       "--set stop.rounds=40 --set training.staleness_lr=adacomp --set compression.kind=topk "
       "--set compression.ratio=0.1"}};
  for (const auto& [name, sets] : runs) {
    CAPTURE(name);
    const fs::path out =
        run_ok("two-devices.json", kFourDevices + sets + " --set training.buffer_size=1", "k1-" + name);
    const fs::path golden = kData / "async-k1" / name;
    // Every column the golden files have, value for value (columns added since, such as energy, aside).
    for (const std::string file : {"metrics.csv", "devices.csv", "staleness.csv"}) {
      CAPTURE(file);
      const auto have = read_csv(out / file), want = read_csv(golden / file);
      REQUIRE(have.size() == want.size());
      for (size_t i = 0; i < want.size(); ++i)
        for (const auto& [column, value] : want[i]) {
          CAPTURE(column);
          CAPTURE(value);
          CHECK_MESSAGE(same_figure(column, have[i].at(column), value), have[i].at(column));
        }
    }
    const auto summary = read_json(out / "summary.json");
    const auto expected = read_json(golden / "summary.json");
    for (const auto& [key, value] : expected.items()) {
      CAPTURE(key);
      if (value.is_number_float())
        CHECK_MESSAGE(same_figure(key, summary.at(key).dump(), value.dump()), summary.at(key).dump());
      else
        CHECK_MESSAGE(holds(summary.at(key), value), summary.at(key).dump());
    }
    CHECK(summary["buffer_size"] == 1);
    CHECK(summary["buffers_applied"] == summary["rounds"]);
  }
}

TEST_CASE("fedbuff: buffer_size K makes a version of every K pushes, staleness counted in versions") {
  // Device i pushes at k x cycle_i (async3.xml). Push n (0-based, in time order) completes a version
  // when (n + 1) % K == 0; the device's next pull, answered right after, gets version (n + 1) / K. So a
  // push at index n from a device whose previous push was at index p has staleness n / K - (p + 1) / K
  // (its first: n / K).
  const int64_t k = 3;
  const fs::path out = run_ok("two-devices.json",
                              async3("--set training.compute=timing-only --set training.mode=async "
                                     "--set training.buffer_size=3 --set stop.rounds=12"),
                              "k3-schedule");
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["rounds"] == 12);
  CHECK(summary["buffers_applied"] == 12);
  CHECK(summary["buffer_size"] == 3);
  CHECK(summary["pushes_buffered_at_end"] == 0);
  const auto rows = read_csv(out / "staleness.csv");
  REQUIRE(rows.size() == 36);
  struct Push {
    double at;
    std::string device;
  };
  std::vector<Push> pushes;
  for (const auto& [name, cycle] : {std::pair{"c3", 3e-3}, {"c4", 4.1e-3}, {"c5", 5.3e-3}})
    for (int i = 1; i * cycle < 0.1; ++i) pushes.push_back({i * cycle, name});
  std::sort(pushes.begin(), pushes.end(), [](const Push& a, const Push& b) { return a.at < b.at; });
  std::map<std::string, int64_t> previous;  // device -> index of its previous push
  for (size_t n = 0; n < rows.size(); ++n) {
    CAPTURE(n);
    const auto i = static_cast<int64_t>(n);
    const auto prev = previous.find(pushes[n].device);
    const int64_t pulled = prev == previous.end() ? 0 : (prev->second + 1) / k;
    CHECK(rows[n].at("device") == pushes[n].device);
    CHECK(std::stod(rows[n].at("sim_time_s")) == doctest::Approx(pushes[n].at).epsilon(1e-4));
    CHECK(count(rows[n], "staleness") == i / k - pulled);
    previous[pushes[n].device] = i;
  }
  // round_s: the time between applied versions (pushes 2, 5, ..., 35), the first from the start;
  // nearest-rank median (rank 6 of 12) and p95 (rank 12 of 12, the longest).
  std::vector<double> gaps;
  for (size_t n = k - 1; n < pushes.size() && gaps.size() < 12; n += k)
    gaps.push_back(pushes[n].at - (n < k ? 0.0 : pushes[n - k].at));
  REQUIRE(gaps.size() == 12);
  std::sort(gaps.begin(), gaps.end());
  const auto& round = summary["round_s"];
  CHECK(round["count"] == 12);
  CHECK(round["mean"].get<double>() == doctest::Approx(pushes[35].at / 12).epsilon(1e-4));
  CHECK(round["median"].get<double>() == doctest::Approx(gaps[5]).epsilon(1e-3));
  CHECK(round["p95"].get<double>() == doctest::Approx(gaps[11]).epsilon(1e-3));
  CHECK(round["max"].get<double>() == doctest::Approx(gaps[11]).epsilon(1e-3));
  // Stopped on time, a partly filled buffer is not applied and says so; every push is accounted for.
  const fs::path timed =
      run_ok("two-devices.json",
             async3("--set training.compute=timing-only --set training.mode=async "
                    "--set training.buffer_size=4 --set stop.rounds=null --set stop.sim_time_s=0.05"),
             "k4-timed");
  const auto s = read_json(timed / "summary.json");
  int64_t delivered = 0;
  for (const auto& d : read_csv(timed / "devices.csv")) delivered += count(d, "steps");
  const auto taken = static_cast<int64_t>(read_csv(timed / "staleness.csv").size());
  CHECK(taken == delivered);
  CHECK(taken == 4 * s["rounds"].get<int64_t>() + s["pushes_buffered_at_end"].get<int64_t>());
  CHECK(s["pushes_buffered_at_end"].get<int64_t>() > 0);
}

TEST_CASE(
    "hold: no device starts an update more than max_staleness pushes ahead, and a straggler makes the others wait") {
  // c5 made a straggler (a cycle of 26.5 ms against 3 and 4.1 ms). With hold and bound 1, a device's
  // k-th push comes from an update started when the slowest had at least k - 2 pushes; with drop it
  // races ahead and its stale pushes are dropped.
  const std::string sets = async3(
      "--set platform.hosts.c5.speed=1988830.1886792453f --set training.compute=timing-only "
      "--set training.mode=async --set training.max_staleness=1 --set stop.rounds=null --set stop.sim_time_s=0.3 ");
  const fs::path hold = run_ok("two-devices.json", sets + "--set training.staleness_policy=hold", "hold-straggler");
  const fs::path drop = run_ok("two-devices.json", sets + "--set training.staleness_policy=drop", "drop-straggler");
  auto worst_lead = [](const fs::path& out) {
    int64_t worst = 0;
    for (const auto& c : push_counts(out)) {
      int64_t slowest = INT64_MAX, fastest = 0;
      for (const auto& [device, n] : c) {
        slowest = std::min(slowest, n);
        fastest = std::max(fastest, n);
      }
      worst = std::max(worst, fastest - slowest);
    }
    return worst;
  };
  CHECK(worst_lead(hold) <= 2);  // bound + the push of the update it was allowed to start
  CHECK(worst_lead(drop) > 10);
  const auto h = read_json(hold / "summary.json"), d = read_json(drop / "summary.json");
  CHECK(h["stale_drops"] == 0);
  CHECK(d["stale_drops"].get<int64_t>() > 0);
  CHECK(h["holds"].get<int64_t>() > 0);
  CHECK(d["holds"] == 0);
  // The held time is the fast devices' waiting for their model (transfers take nanoseconds here).
  double waited = 0;
  std::map<std::string, double> hold_wait, drop_wait;
  for (const auto& row : read_csv(hold / "devices.csv")) hold_wait[row.at("device")] = num(row, "wait_s");
  for (const auto& row : read_csv(drop / "devices.csv")) drop_wait[row.at("device")] = num(row, "wait_s");
  for (const char* fast : {"c3", "c4"}) {
    CAPTURE(fast);
    CHECK(hold_wait[fast] > 0.1);
    CHECK(drop_wait[fast] < 1e-3);  // queueing behind the server's applies
    waited += hold_wait[fast];
  }
  CHECK(hold_wait["c5"] < 1e-3);  // the slowest is never held
  CHECK(waited == doctest::Approx(h["held_s"].get<double>()).epsilon(1e-3));
}

TEST_CASE("hold: a device that is off holds nobody back, and rejoins at the slowest's count") {
  // c5 is off from 20 to 150 ms: c3 and c4 go on within the bound of each other, and c5 rejoins.
  const fs::path out =
      run_ok("two-devices.json",
             async3("--set training.compute=timing-only --set training.mode=async --set training.max_staleness=1 "
                    "--set training.staleness_policy=hold --set stop.rounds=null --set stop.sim_time_s=0.3 "
                    "--set 'faults={\"devices\":[{\"device\":\"c5\",\"off_s\":[[0.02,0.15]]}]}'"),
             "hold-off");
  const auto rows = read_csv(out / "staleness.csv");
  int64_t c3_while_off = 0, c5_after = 0;
  for (const auto& r : rows) {
    const double at = num(r, "sim_time_s");
    c3_while_off += r.at("device") == "c3" && at > 0.025 && at < 0.15;
    c5_after += r.at("device") == "c5" && at > 0.15;
  }
  CHECK(c3_while_off > 30);  // about 130 ms / 4.1 ms: c4 paces it
  CHECK(c5_after > 20);      // back on: not held behind its own old count
  const auto s = read_json(out / "summary.json");
  CHECK(s["stale_drops"] == 0);
  CHECK(s["restarts"] == 1);
}

TEST_CASE("fedbuff and hold: a bad combination is one line naming the key, exit 2") {
  // The messages of every combination: tests/scenario/local_sgd_test.cpp.
  const Result r = run_cli("run " + (kData / "two-devices.json").string() +
                               " --quiet --set training.mode=async --set training.staleness_policy=hold",
                           "fedbuff-bad");
  CHECK(r.status == 2);
  CHECK(r.err == "edgetrain: training.staleness_policy: hold needs training.max_staleness (the bound it holds to)\n");
}
