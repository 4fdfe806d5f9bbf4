// Whole runs of mode async: staleness bookkeeping, the N - 1 law for homogeneous devices,
// bounded staleness, and the staleness-aware step rules end to end.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "two_devices.hpp"

using namespace test;

TEST_CASE("async: every applied push is recorded with its staleness, and bytes add up") {
  const fs::path out = run_two_devices("async-basic", "--set training.mode=async --set stop.rounds=40");
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["rounds"] == 40);
  CHECK(summary["mode"] == "async");
  const auto rows = read_csv(out / "staleness.csv");
  CHECK(rows.size() == 40);
  int64_t max = 0;
  for (const auto& r : rows) max = std::max<int64_t>(max, std::stoll(r.at("staleness")));
  CHECK(summary["staleness_max"] == max);
  // Two devices: at most one other update lands between a pull and its push... or a few when
  // one device is several times faster than the other.
  CHECK(max >= 1);
  const auto devices = read_csv(out / "devices.csv");
  int64_t up = 0;
  for (const auto& d : devices) up += std::stoll(d.at("bytes_up"));
  CHECK(up == summary["bytes_up"].get<int64_t>());
}

TEST_CASE("async: homogeneous devices see mean staleness close to N - 1") {
  // 8 identical devices whose cycle is nearly all compute (tests/sim/data/homogeneous8.xml):
  // between a device's pull and its push, each of the 7 others pushes once.
  const fs::path out = fresh_dir("async-homogeneous");
  const Result r = run_cli("run " + (kData / "two-devices.json").string() + " --quiet --out " + out.string() +
                               " --set platform=" + (kData / "homogeneous8.xml").string() +
                               " --set server=server --set 'devices=[\"d1\",\"d2\",\"d3\",\"d4\",\"d5\",\"d6\","
                               "\"d7\",\"d8\"]' --set training.mode=async --set training.start_jitter_s=0.1 "
                               "--set stop.rounds=800",
                           "async-homogeneous");
  INFO(r.err);
  REQUIRE(r.status == 0);
  // Steady state: skip the first 100 updates (the staggered start).
  const auto rows = read_csv(out / "staleness.csv");
  REQUIRE(rows.size() == 800);
  double sum = 0;
  for (size_t i = 100; i < rows.size(); ++i) sum += std::stod(rows[i].at("staleness"));
  CHECK(sum / 700.0 == doctest::Approx(7.0).epsilon(0.05));
}

TEST_CASE("async: max_staleness drops staler pushes and counts them") {
  const fs::path out = run_two_devices("async-bounded",
                                       "--set training.mode=async --set training.max_staleness=0 "
                                       "--set stop.rounds=30");
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["stale_drops"].get<int64_t>() > 0);
  CHECK(summary["staleness_max"] == 0);
  int64_t drops = 0;
  for (const auto& d : read_csv(out / "devices.csv")) drops += std::stoll(d.at("stale_drops"));
  CHECK(drops == summary["stale_drops"].get<int64_t>());
}

TEST_CASE("async: the staleness rules change the trajectory, and adacomp reads top-k index sets") {
  // Four devices (three share dev-b's host): staleness reaches 2 and more, where the rules differ.
  const std::string base =
      "--set training.mode=async --set stop.rounds=60 --set 'devices=[\"dev-a\",\"dev-b\",{\"host\":\"dev-b\","
      "\"name\":\"b2\"},{\"host\":\"dev-b\",\"name\":\"b3\"}]' ";
  const fs::path none = run_two_devices("async-none", base);
  const fs::path inverse = run_two_devices("async-inverse", base + "--set training.staleness_lr=inverse");
  CHECK(slurp(none / "metrics.csv") != slurp(inverse / "metrics.csv"));
  const fs::path adacomp = run_two_devices(
      "async-adacomp",
      base + "--set training.staleness_lr=adacomp --set compression.kind=adacomp --set compression.ratio=0.05");
  const auto s = read_json(adacomp / "summary.json");
  CHECK(s["status"] == "completed");
  CHECK(s["compression_ratio"].get<double>() > 5.0);
}

TEST_CASE("async: staleness follows the hand-computed schedule of three devices") {
  // tests/sim/data/async3.xml: device cycles of 3, 4.1 and 5.3 ms, all compute (transfers and
  // the server's apply take nanoseconds to a microsecond). Device i pushes at k x cycle_i; it
  // pulled right after its previous push was applied, so its staleness is the number of the
  // others' pushes in between.
  const fs::path out = fresh_dir("async-schedule");
  const Result r = run_cli("run " + (kData / "two-devices.json").string() + " --quiet --out " + out.string() +
                               " --set platform=" + (kData / "async3.xml").string() +
                               " --set 'devices=[\"c3\",\"c4\",\"c5\"]' --set training.mode=async --set stop.rounds=40",
                           "async-schedule");
  INFO(r.err);
  REQUIRE(r.status == 0);
  struct Push {
    double at;
    std::string device;
    double cycle;
  };
  std::vector<Push> pushes;
  const std::pair<const char*, double> cycles[] = {{"c3", 3e-3}, {"c4", 4.1e-3}, {"c5", 5.3e-3}};
  for (const auto& [name, cycle] : cycles)
    for (int k = 1; k * cycle < 0.1; ++k) pushes.push_back({k * cycle, name, cycle});
  std::sort(pushes.begin(), pushes.end(), [](const Push& a, const Push& b) { return a.at < b.at; });
  const auto rows = read_csv(out / "staleness.csv");
  REQUIRE(rows.size() == 40);
  for (size_t n = 0; n < rows.size(); ++n) {
    const Push& p = pushes[n];
    int64_t others = 0;
    for (const Push& q : pushes) others += q.device != p.device && q.at > p.at - p.cycle && q.at < p.at;
    CAPTURE(n);
    CHECK(rows[n].at("device") == p.device);
    CHECK(std::stod(rows[n].at("sim_time_s")) == doctest::Approx(p.at).epsilon(1e-4));
    CHECK(std::stoll(rows[n].at("staleness")) == others);
  }
}

TEST_CASE("async: a busy server takes messages in arrival order (staleness stays below N)") {
  // tests/sim/data/lockstep3.xml: three identical devices (a step takes 3 ms), a server whose
  // apply takes 5 ms, transfers of nanoseconds. Times in ms:
  //   0      l1, l2, l3 pull and get version 0; they push at 3, all three at the same instant
  //          (a tie: device order), and pull right after.
  //   3-8    l1's push applied (staleness 0). Meanwhile l2's and l3's pushes and l1's pull wait.
  //   8-13   l2's push (delivered at 3) before l1's pull (delivered just after 3): staleness 1.
  //   13-18  l3's push: staleness 2.
  //   18     the three pulls are answered with version 3: the cycle starts again, 18 ms later.
  // So rows come at 8, 13, 18 (+ 18 k) from l1, l2, l3 with staleness 0, 1, 2. Taking the
  // messages by slot instead answers l3's pull at 13 before its push delivered at 3 is applied,
  // and staleness reaches 3 = N.
  const fs::path out = fresh_dir("async-arrival-order");
  const Result r = run_cli("run " + (kData / "two-devices.json").string() + " --quiet --out " + out.string() +
                               " --set platform=" + (kData / "lockstep3.xml").string() +
                               " --set 'devices=[\"l1\",\"l2\",\"l3\"]' --set training.mode=async --set stop.rounds=12",
                           "async-arrival-order");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto rows = read_csv(out / "staleness.csv");
  REQUIRE(rows.size() == 12);
  const char* devices[] = {"l1", "l2", "l3"};
  for (size_t n = 0; n < rows.size(); ++n) {
    CAPTURE(n);
    const size_t k = n % 3;
    CHECK(rows[n].at("device") == devices[k]);
    CHECK(std::stoll(rows[n].at("staleness")) == static_cast<int64_t>(k));
    CHECK(std::stod(rows[n].at("sim_time_s")) == doctest::Approx(0.018 * (n / 3) + 0.008 + 0.005 * k).epsilon(1e-4));
  }
}
