// Whole runs of mode local-sgd (FedAvg-style) on tests/sim/data/two-devices.{json,xml}.
#include <doctest/doctest.h>

#include "two_devices.hpp"

using namespace test;

TEST_CASE("local-sgd: each push follows local_steps real steps, charged step by step") {
  const fs::path out =
      run_two_devices("local-sgd-steps", "--set training.mode=local-sgd --set training.local_steps=3");
  const auto devices = read_csv(out / "devices.csv");
  for (size_t i = 0; i < 2; ++i) {
    const auto& row = devices[i];
    CHECK(std::stoll(row.at("steps")) == kRounds);  // one push per round
    CHECK(std::stoll(row.at("samples_trained")) == kRounds * 3 * kBatch);
    CHECK(std::stod(row.at("compute_s")) == doctest::Approx(kRounds * 3 * compute_s(kDevices[i])).epsilon(1e-9));
    CHECK(std::stoll(row.at("bytes_up")) == kRounds * kDenseMessage);  // a delta weighs what a gradient does
    // The update and the local model: two model-sized vectors (the pulled model is a shared snapshot).
    CHECK(std::stoll(row.at("model_memory_bytes")) == 2 * 4 * kParams);
  }
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["mode"] == "local-sgd");
  CHECK(summary["rounds"] == kRounds);
}

TEST_CASE("local-sgd: one local step at server_lr 1 is synchronous SGD") {
  // The delta pulled - (pulled - lr g) is lr g up to float rounding, and FedAvg weights of equal
  // batches are the plain mean: the two trajectories agree to rounding.
  const fs::path sync = run_two_devices("local-sgd-as-sync-ref", "--set stop.rounds=20");
  const fs::path local = run_two_devices(
      "local-sgd-as-sync", "--set stop.rounds=20 --set training.mode=local-sgd --set training.local_steps=1");
  const auto a = read_json(sync / "summary.json"), b = read_json(local / "summary.json");
  CHECK(b["final_test_loss"].get<double>() == doctest::Approx(a["final_test_loss"].get<double>()).epsilon(1e-4));
  CHECK(b["sim_time_s"].get<double>() == doctest::Approx(a["sim_time_s"].get<double>()).epsilon(1e-12));
}

TEST_CASE("local-sgd: async aggregation applies each delta on arrival with its staleness") {
  const fs::path out = run_two_devices("local-sgd-async", "--set training.mode=local-sgd --set training.aggregation=async "
                                                          "--set training.local_steps=2 --set stop.rounds=30");
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["rounds"] == 30);
  CHECK(read_csv(out / "staleness.csv").size() == 30);
  CHECK(summary["staleness_max"].get<int64_t>() >= 1);
}
