// Whole runs of mode sync on a 2-device synthetic scenario with dedicated links, checked
// against the time model by hand: CM02 transfers take latency + size/bandwidth, a step
// takes step FLOPs / host speed, the server's apply takes apply FLOPs / its speed.
#include <doctest/doctest.h>

#include <algorithm>

#include "two_devices.hpp"

using namespace test;

TEST_CASE("sync: compute time is FLOPs / speed and every message is the model's fp32 size plus header") {
  const fs::path out = run_two_devices("sync-accounting");
  const auto devices = read_csv(out / "devices.csv");
  REQUIRE(devices.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const Device& d = kDevices[i];
    const auto& row = devices[i];
    CHECK(row.at("device") == d.name);
    CHECK(std::stod(row.at("host_speed_flops")) == d.speed_flops);
    CHECK(std::stoll(row.at("steps")) == kRounds);
    CHECK(std::stoll(row.at("samples_trained")) == kRounds * kBatch);
    CHECK(std::stod(row.at("compute_s")) == doctest::Approx(kRounds * compute_s(d)).epsilon(1e-9));
    CHECK(std::stoll(row.at("bytes_up")) == kRounds * kDenseMessage);
    CHECK(std::stoll(row.at("bytes_down")) == kRounds * kDenseMessage);
    CHECK(std::stod(row.at("comm_s")) ==
          doctest::Approx(kRounds * (transfer_s(d.up) + transfer_s(d.down))).epsilon(1e-9));
  }
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["status"] == "completed");
  CHECK(summary["rounds"] == kRounds);
  CHECK(summary["model_params"] == kParams);
  CHECK(summary["bytes_up"] == 2 * kRounds * kDenseMessage);
  CHECK(summary["bytes_down"] == 2 * kRounds * kDenseMessage);
  // A round lasts as long as its slowest device, plus the server's apply.
  double slowest = 0;
  for (const Device& d : kDevices) slowest = std::max(slowest, transfer_s(d.down) + compute_s(d) + transfer_s(d.up));
  CHECK(summary["sim_time_s"].get<double>() == doctest::Approx(kRounds * (slowest + apply_s(2))).epsilon(1e-9));
  // Every device's time splits exactly into compute, communication and waiting.
  for (const auto& row : devices) {
    const double total = num(row, "compute_s") + num(row, "comm_s") + num(row, "wait_s") + num(row, "offline_s");
    CHECK(total == summary["sim_time_s"].get<double>());  // exactly, on the printed values
  }
}

TEST_CASE("sync: same scenario and seed give byte-identical results and another seed does not") {
  const fs::path a = run_two_devices("sync-det-a"), b = run_two_devices("sync-det-b");
  const fs::path c = run_two_devices("sync-det-c", "--seed 6");
  for (const char* file : {"metrics.csv", "devices.csv", "scenario.json"}) {
    CHECK(slurp(a / file) == slurp(b / file));
  }
  CHECK(slurp(a / "metrics.csv") != slurp(c / "metrics.csv"));
  CHECK(read_json(c / "summary.json")["seed"] == 6);
}

TEST_CASE("sync: the evaluation curve is recorded every eval.every_s and the model learns") {
  const fs::path out = run_two_devices("sync-curve", "--set stop.rounds=60");
  const auto metrics = read_csv(out / "metrics.csv");
  REQUIRE(metrics.size() >= 3);
  CHECK(std::stod(metrics[0].at("sim_time_s")) == 0);
  CHECK(std::stod(metrics[1].at("sim_time_s")) == doctest::Approx(0.5));
  int64_t previous_bytes = -1;
  for (const auto& row : metrics) {
    CHECK(std::stoll(row.at("bytes_up")) >= previous_bytes);  // cumulative
    previous_bytes = std::stoll(row.at("bytes_up"));
  }
  const double first = std::stod(metrics.front().at("test_accuracy"));
  const double last = std::stod(metrics.back().at("test_accuracy"));
  CHECK(last > first + 0.3);
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["final_test_accuracy"].get<double>() == doctest::Approx(last));
  CHECK(summary["rounds"] == 60);
}

TEST_CASE("sync: the run stops at the target accuracy and records when it was reached") {
  const fs::path out = run_two_devices("sync-target", "--set stop.rounds=500 --set stop.target_accuracy=0.6");
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["status"] == "target_reached");
  REQUIRE(summary["time_to_target_s"].is_number());
  CHECK(summary["best_test_accuracy"].get<double>() >= 0.6);
  CHECK(summary["rounds"].get<int>() < 500);
}

TEST_CASE("sync: stop.sim_time_s ends the run at that simulated time") {
  const fs::path out = run_two_devices("sync-time", "--set stop.rounds=null --set stop.sim_time_s=1");
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["status"] == "completed");
  CHECK(summary["status_reason"] == "stop.sim_time_s reached");
  CHECK(summary["sim_time_s"].get<double>() == doctest::Approx(1.0));
}

TEST_CASE("sync: a diverging run stops with status diverged, exit 3, results written") {
  const fs::path out = fresh_dir("sync-diverge");
  const Result r = run_cli("run " + (kData / "two-devices.json").string() + " --quiet --out " + out.string() +
                               " --set training.lr=1e30 --set stop.rounds=50",
                           "diverge");
  CHECK(r.status == 3);
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["status"] == "diverged");
  CHECK(fs::exists(out / "metrics.csv"));
}
