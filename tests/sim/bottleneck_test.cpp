// Outputs that explain a run: links' busy time, rounds.csv, the bottleneck section of
// summary.json and the time to target exact to the round, checked against the hand-computed
// two-device model (tests/sim/two_devices.hpp: every transfer is alone on its link).
#include <doctest/doctest.h>

#include "two_devices.hpp"

using namespace test;

namespace {

double round_s() {
  double slowest = 0;
  for (const Device& d : kDevices) slowest = std::max(slowest, transfer_s(d.down) + compute_s(d) + transfer_s(d.up));
  return slowest + apply_s(2);
}

}  // namespace

TEST_CASE("links are busy exactly while their transfers run, and rounds.csv has every round") {
  const fs::path out = run_two_devices("bottleneck-links", "--set training.compute=timing-only");
  std::map<std::string, std::map<std::string, std::string>> links;
  for (const auto& row : read_csv(out / "links.csv")) links[row.at("link")] = row;
  const Device& a = kDevices[0];
  CHECK(num(links["a-up"], "busy_s") == doctest::Approx(kRounds * transfer_s(a.up)).epsilon(1e-9));
  CHECK(num(links["a-down"], "busy_s") == doctest::Approx(kRounds * transfer_s(a.down)).epsilon(1e-9));
  // Bytes over busy time at full rate: below 1 by the latency's share of each transfer.
  CHECK(num(links["a-up"], "utilization_when_busy") ==
        doctest::Approx(kDenseMessage / a.up.bandwidth_Bps / transfer_s(a.up)).epsilon(1e-9));
  const double sim_time = read_json(out / "summary.json")["sim_time_s"].get<double>();
  CHECK(num(links["a-up"], "busy_fraction") == doctest::Approx(num(links["a-up"], "busy_s") / sim_time));

  const auto rounds = read_csv(out / "rounds.csv");
  REQUIRE(rounds.size() == static_cast<size_t>(kRounds));
  // dev-a (1 Gf, 1 MB/s up) is the slowest every round.
  for (size_t r = 0; r < rounds.size(); ++r) {
    CAPTURE(r);
    CHECK(count(rounds[r], "round") == static_cast<int64_t>(r));
    CHECK(count(rounds[r], "applied") == 1);
    CHECK(num(rounds[r], "start_s") == doctest::Approx(r * round_s()).epsilon(1e-9));
    CHECK(num(rounds[r], "duration_s") == doctest::Approx(round_s()).epsilon(1e-9));
    CHECK(rounds[r].at("slowest_device") == "dev-a");
    CHECK(count(rounds[r], "updates") == 2);
    CHECK(count(rounds[r], "missing") == 0);
    CHECK(num(rounds[r], "bytes_up") == 2 * kDenseMessage);
    CHECK(num(rounds[r], "bytes_down") == 2 * kDenseMessage);
  }
  CHECK(read_csv(out / "buffers_fleet.csv").empty());  // no streams

  const auto bottleneck = read_json(out / "summary.json")["bottleneck"];
  CHECK(bottleneck["critical_path"]["device"] == "dev-a");
  CHECK(bottleneck["critical_path"]["link"] == "a-up");  // the busiest (and only) link of its route
  CHECK(bottleneck["critical_path"]["rounds_slowest"] == kRounds);
  CHECK(bottleneck["links"][0]["link"] == "a-up");  // 1 MB/s: the highest mean utilisation
  CHECK(bottleneck["links"].size() == 4);           // the four links that carried bytes
  // Both devices wait for the round most of the time in this tiny model.
  int64_t classed = 0;
  for (const auto& [bound, n] : bottleneck["devices"].items()) classed += n.get<int64_t>();
  CHECK(classed == 2);
  CHECK(bottleneck["by_class"].contains("dev-a"));  // no class property, no trailing number: the host name
  const auto devices = read_csv(out / "devices.csv");
  CHECK(devices[0].at("bound") != "");
}

TEST_CASE("a fleet total of the stream buffers sits beside buffers.csv") {
  const fs::path out = run_two_devices(
      "bottleneck-fleet-buffers",
      "--set training.compute=timing-only --set 'stream={\"rate\":{\"dist\":\"constant\",\"value\":40}}' "
      "--set report.buffer_every_s=0.05");
  const auto fleet = read_csv(out / "buffers_fleet.csv");
  REQUIRE(fleet.size() > 3);
  const double end = read_json(out / "summary.json")["sim_time_s"].get<double>();
  CHECK(num(fleet.back(), "sim_time_s") == doctest::Approx(end));
  // At the end the fleet total is the sum of each device's final buffers.csv row.
  std::map<std::string, std::map<std::string, std::string>> last;
  for (const auto& row : read_csv(out / "buffers.csv")) last[row.at("device")] = row;
  int64_t buffered = 0, arrived = 0;
  for (const auto& [device, row] : last) {
    buffered += count(row, "buffered_samples");
    arrived += count(row, "arrived");
  }
  CHECK(count(fleet.back(), "buffered_samples") == buffered);
  CHECK(count(fleet.back(), "arrived") == arrived);
}

TEST_CASE("time to target: sync rounds near the target are evaluated as they end, exact to the round") {
  // A target just above the first evaluation: from then on every round end is evaluated.
  const fs::path probe = run_two_devices("ttt-probe");
  const double first = num(read_csv(probe / "metrics.csv").front(), "test_accuracy");
  const fs::path out =
      run_two_devices("ttt", "--set stop.rounds=200 --set eval.every_s=1000 --set stop.target_accuracy=" +
                                 std::to_string(std::min(first + 0.005, 0.999)));
  const auto summary = read_json(out / "summary.json");
  REQUIRE(summary["status"] == "target_reached");
  CHECK(summary["time_to_target_exact_to"] == "round");
  const double t = summary["time_to_target_s"].get<double>();
  bool at_round_end = false;
  for (const auto& r : read_csv(out / "rounds.csv")) at_round_end = at_round_end || num(r, "end_s") == t;
  CHECK(at_round_end);
  const auto bracket = summary["time_to_target_bracket_s"];
  CHECK(bracket[1].get<double>() == t);
  CHECK(bracket[0].get<double>() < t);
  // Every evaluation but the first happened at a round end: none waited for eval.every_s.
  CHECK(read_csv(out / "metrics.csv").size() == static_cast<size_t>(summary["rounds"].get<int64_t>()) + 1);
}

TEST_CASE("under client selection the critical link is the slowest device's saturated uplink, not a busier shared one") {
  // tests/sim/data/selected8.xml: 4 of 8 devices a round through one shared ingress; d1's own uplink is
  // five times thinner than the others'. d1 is the slowest of every round it takes part in.
  const fs::path out = run_ok("eight-devices.json",
                              "--set platform=selected8.xml --set 'training.selection={\"kind\":\"random\",\"per_round\":4}' "
                              "--set stop.rounds=40 --set training.compute=timing-only",
                              "critical-selected");
  const auto s = read_json(out / "summary.json");
  const auto& critical = s["bottleneck"]["critical_path"];
  REQUIRE(critical["device"] == "d1");
  CHECK(critical["rounds_slowest"] == critical["rounds_taken_part"]);
  std::map<std::string, nlohmann::json> links;
  for (const auto& l : s["bottleneck"]["links"]) links[l["link"].get<std::string>()] = l;
  // The ingress has the larger mean (busy every round), d1-up runs near its capacity while busy.
  REQUIRE(links.count("ingress"));
  REQUIRE(links.count("d1-up"));
  CHECK(links["ingress"]["mean_utilization"].get<double>() > links["d1-up"]["mean_utilization"].get<double>());
  CHECK(links["d1-up"]["utilization_when_busy"].get<double>() > 0.95);
  CHECK(links["ingress"]["utilization_when_busy"].get<double>() < 0.8);
  CHECK(critical["link"] == "d1-up");
  CHECK(critical["link_bandwidth_bps"] == 320000.0);
}
