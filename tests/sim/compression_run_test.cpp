// Whole runs with compression on tests/sim/data/two-devices.{json,xml}: message sizes are the
// real encodings' lengths, so simulated time follows the bytes exactly; links.csv carries them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "two_devices.hpp"

using namespace test;

namespace {

// top-k 1% per layer of 1024, 16, 64 and 4 entries: k = max(1, floor(0.01 n)) = 10, 1, 1, 1,
// each 4 value bytes + 4 index bytes.
constexpr double kTopkMessage = 8 * (10 + 1 + 1 + 1) + kHeader;

double round_time(double up_bytes, double down_bytes) {
  double slowest = 0;
  for (const Device& d : kDevices) {
    slowest = std::max(slowest, transfer_s(d.down, down_bytes) + compute_s(d) + transfer_s(d.up, up_bytes));
  }
  return slowest + apply_s(2);
}

}  // namespace

TEST_CASE("compression: top-k 1% shortens the round by exactly what its bytes predict") {
  const fs::path dense = run_two_devices("comp-dense", "");
  const fs::path topk = run_two_devices("comp-topk", "--set compression.kind=topk --set compression.ratio=0.01");
  const auto d = read_json(dense / "summary.json"), t = read_json(topk / "summary.json");
  CHECK(d["sim_time_s"].get<double>() ==
        doctest::Approx(kRounds * round_time(kDenseMessage, kDenseMessage)).epsilon(1e-9));
  CHECK(t["sim_time_s"].get<double>() ==
        doctest::Approx(kRounds * round_time(kTopkMessage, kDenseMessage)).epsilon(1e-9));
  CHECK(t["bytes_up"] == 2 * kRounds * kTopkMessage);
  CHECK(t["bytes_up_uncompressed"] == 2 * kRounds * kDenseMessage);
  CHECK(t["compression_ratio"].get<double>() == doctest::Approx(kDenseMessage / kTopkMessage));
  CHECK(d["compression_ratio"].get<double>() == 1.0);
  CHECK(t["cnc_ratio"].is_null());
  for (const auto& row : read_csv(topk / "devices.csv")) {
    CHECK(std::stod(row.at("bytes_up")) == kRounds * kTopkMessage);
    CHECK(std::stod(row.at("compression_ratio")) == doctest::Approx(kDenseMessage / kTopkMessage));
  }
}

TEST_CASE("compression: links.csv holds the bytes each link carried") {
  const fs::path out = run_two_devices("comp-links", "--set compression.kind=topk");
  std::map<std::string, std::map<std::string, std::string>> links;
  for (const auto& row : read_csv(out / "links.csv")) links[row.at("link")] = row;
  for (const char* name : {"a-up", "b-up"}) {
    CHECK(std::stod(links.at(name).at("bytes")) == kRounds * kTopkMessage);
    CHECK(links.at(name).at("messages") == "6");
  }
  for (const char* name : {"a-down", "b-down"}) CHECK(std::stod(links.at(name).at("bytes")) == kRounds * kDenseMessage);
  CHECK(std::stod(links.at("a-up").at("bandwidth_bps")) == 8e6);
  const double end = read_json(out / "summary.json")["sim_time_s"].get<double>();
  CHECK(std::stod(links.at("a-down").at("mean_utilization")) == doctest::Approx(kRounds * kDenseMessage / (4e6 * end)));
}

TEST_CASE("compression: adaptive top-k sends compressed only while the smoothed norm gap is below delta") {
  const std::string topk = "--set compression.kind=topk --set compression.ratio=0.05 ";
  const auto always =
      read_json(run_two_devices("adaptive-always", topk + "--set 'compression.adaptive={\"delta\":1.0}'") / "summary.json");
  CHECK(always["cnc_ratio"] == 1.0);
  const auto never =
      read_json(run_two_devices("adaptive-never", topk + "--set 'compression.adaptive={\"delta\":0.0}'") / "summary.json");
  CHECK(never["cnc_ratio"] == 0.0);
  CHECK(never["bytes_up"] == 2 * kRounds * kDenseMessage);  // every step went dense
  const fs::path mid = run_two_devices("adaptive-mid", topk + "--set 'compression.adaptive={\"delta\":0.5,\"smoothing\":0.5}'");
  for (const auto& row : read_csv(mid / "devices.csv")) {
    const double cnc = std::stod(row.at("cnc_ratio"));
    CHECK(cnc >= 0.0);
    CHECK(cnc <= 1.0);
  }
}

TEST_CASE("compression: a compressed downlink sends the dense model once, then deltas") {
  const fs::path out = run_two_devices("downlink-fp16", "--set compression.downlink.kind=fp16");
  // Round 0: 4 * 1108 + 64; later rounds: fp16 deltas, 2 * 1108 + 64.
  for (const auto& row : read_csv(out / "devices.csv")) {
    CHECK(std::stod(row.at("bytes_down")) == kDenseMessage + (kRounds - 1) * (2 * kParams + kHeader));
  }
  // Lossy deltas: devices train on an approximation of the model, so the final model differs
  // after the same rounds (the final evaluation; earlier ones fall at other times anyway).
  const auto dense = read_json(run_two_devices("downlink-dense", "") / "summary.json");
  const auto topk = read_json(run_two_devices("downlink-topk", "--set compression.downlink.kind=topk") / "summary.json");
  CHECK(topk["rounds"] == dense["rounds"]);
  CHECK(topk["final_test_loss"] != dense["final_test_loss"]);
}

TEST_CASE("compression: every compressor runs end to end, deterministically, and saves uplink bytes") {
  for (const std::string kind : {"fp16", "topk", "randomk", "threshold", "qsgd", "terngrad", "signsgd", "onebit",
                                 "powersgd", "adacomp", "adacomp-bins"}) {
    CAPTURE(kind);
    // threshold 0.05 keeps a fraction of this model's gradient entries (a low one sends nearly all,
    // at 8 bytes each: more than dense).
    const std::string sets = "--set compression.kind=" + kind + " --set compression.threshold=0.05";
    const fs::path a = run_two_devices("every-" + kind + "-a", sets), b = run_two_devices("every-" + kind + "-b", sets);
    CHECK(slurp(a / "metrics.csv") == slurp(b / "metrics.csv"));
    CHECK(slurp(a / "devices.csv") == slurp(b / "devices.csv"));
    const auto s = read_json(a / "summary.json");
    CHECK(s["status"] == "completed");
    CHECK(s["compression_ratio"].get<double>() > 1.0);
  }
}
