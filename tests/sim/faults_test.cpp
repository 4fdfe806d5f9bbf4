// Whole runs with faults (faults.*), checked by hand on tests/sim/data/two-devices.{json,xml}:
// a device switched off mid-push, a link outage, a bandwidth trace, seeded churn in every
// mode, and a stream that loses what arrives while its device is off. No run may hang, and
// every counter must add up.
#include <doctest/doctest.h>

#include "two_devices.hpp"

using namespace test;

namespace {

// Every device's time splits exactly into compute, communication, waiting and offline time,
// and the devices' uploads add up to the summary's.
void check_ledgers(const fs::path& out) {
  const auto summary = read_json(out / "summary.json");
  int64_t up = 0, failed = 0;
  for (const auto& d : read_csv(out / "devices.csv")) {
    // Exactly, on the printed values (they read back as the doubles written).
    const double total = num(d, "compute_s") + num(d, "comm_s") + num(d, "wait_s") + num(d, "offline_s");
    CHECK(total == summary["sim_time_s"].get<double>());
    up += count(d, "bytes_up");
    failed += count(d, "failed_pushes");
  }
  CHECK(up == summary["bytes_up"].get<int64_t>());
  CHECK(failed == summary["failed_pushes"].get<int64_t>());
}

}  // namespace

TEST_CASE("faults: a device switched off mid-push counts one failed push and the round closes without it") {
  // Round 0: dev-a receives the model at 0.0111 s, computes 53 us and pushes until 0.0257 s;
  // switched off at 0.02 s, its push fails at both ends and the server closes the round with
  // dev-b's gradient alone. Back at 0.5 s, it takes part again.
  const fs::path out = run_two_devices(
      "faults-mid-push",
      "--set 'faults={\"devices\":[{\"device\":\"dev-a\",\"off_s\":[[0.02,0.5]]}]}' "
      "--set training.round_timeout_s=0.1 --set stop.rounds=null --set stop.sim_time_s=1");
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["status"] == "completed");
  CHECK(summary["failed_pushes"] == 1);
  const auto devices = read_csv(out / "devices.csv");
  const auto& a = devices[0];
  CHECK(count(a, "failed_pushes") == 1);
  CHECK(count(a, "restarts") == 1);
  CHECK(num(a, "offline_s") == doctest::Approx(0.48).epsilon(1e-9));
  CHECK(count(a, "samples_lost_in_faults") == kBatch);
  CHECK(count(a, "steps") > 0);  // it came back and contributed
  CHECK(count(devices[1], "failed_pushes") == 0);
  // Each round aggregates the updates that arrived; the others are counted missing.
  const int64_t rounds = summary["rounds"];
  const int64_t steps = count(a, "steps") + count(devices[1], "steps");
  const int64_t missing = summary["missing_updates"];
  CHECK(missing >= 1);
  CHECK(steps >= 2 * rounds - missing);
  CHECK(steps <= 2 * rounds - missing + 2);  // plus at most the round cut by the end of the run
  check_ledgers(out);
}

TEST_CASE("faults: a link outage fails the transfer at both ends and the device retries after retry_s") {
  // Async: dev-a's first push crosses a-up from 0.0212 s to 0.0357 s; a-up goes down at 0.025 s.
  const fs::path out = run_two_devices(
      "faults-link-outage",
      "--set training.mode=async --set 'faults={\"links\":[{\"link\":\"a-up\",\"off_s\":[[0.025,0.3]]}],"
      "\"retry_s\":0.05}' --set stop.rounds=null --set stop.sim_time_s=0.6");
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["status"] == "completed");
  const auto devices = read_csv(out / "devices.csv");
  CHECK(count(devices[0], "failed_pushes") == 1);
  CHECK(count(devices[0], "restarts") == 0);
  CHECK(count(devices[0], "steps") > 0);  // pushes again once the link is back
  CHECK(count(devices[1], "failed_pushes") == 0);
  // Every delivered push was applied (none dropped: no max_staleness).
  CHECK(count(devices[0], "steps") + count(devices[1], "steps") == summary["rounds"].get<int64_t>());
  check_ledgers(out);
}

TEST_CASE("faults: a bandwidth trace sets the link's bandwidth from its times on") {
  const fs::path dir = fresh_dir("faults-trace-file");
  std::ofstream(dir / "a-up.csv") << "time_s,bandwidth_bps\n0,4000000\n";  // 0.5 MB/s instead of 1 MB/s
  const fs::path out = run_two_devices(
      "faults-trace", "--set 'faults={\"links\":[{\"link\":\"a-up\",\"trace\":\"" + (dir / "a-up.csv").string() +
                          "\"}]}' --set training.round_timeout_s=10");
  const auto devices = read_csv(out / "devices.csv");
  const Link slower{kDevices[0].up.latency_s, 0.5e6};
  CHECK(num(devices[0], "comm_s") ==
        doctest::Approx(kRounds * (transfer_s(slower) + transfer_s(kDevices[0].down))).epsilon(1e-9));
  check_ledgers(out);
}

TEST_CASE("faults: seeded churn finishes in every mode, counters add up, and results repeat") {
  const std::string churn =
      "--set 'faults={\"devices\":[{\"device\":\"*\",\"mtbf_s\":0.15,\"mttr_s\":0.05}],\"retry_s\":0.01}' "
      "--set stop.rounds=null --set stop.sim_time_s=2 ";
  const std::pair<std::string, std::string> modes[] = {
      {"sync", "--set training.round_timeout_s=0.05"},
      {"async", "--set training.mode=async"},
      {"local-sgd-sync", "--set training.mode=local-sgd --set training.round_timeout_s=0.05"},
      {"local-sgd-async", "--set training.mode=local-sgd --set training.aggregation=async"},
  };
  for (const auto& [name, sets] : modes) {
    CAPTURE(name);
    const fs::path out = run_two_devices("faults-churn-" + name, churn + sets);
    const auto summary = read_json(out / "summary.json");
    CHECK(summary["status"] == "completed");
    CHECK(summary["restarts"].get<int64_t>() > 0);
    CHECK(summary["rounds"].get<int64_t>() > 0);
    check_ledgers(out);
    if (name.find("async") != std::string::npos) {
      int64_t steps = 0;
      for (const auto& d : read_csv(out / "devices.csv")) steps += count(d, "steps");
      CHECK(steps == summary["rounds"].get<int64_t>() + summary["stale_drops"].get<int64_t>());
    }
    if (name == "sync") {
      const fs::path again = run_two_devices("faults-churn-again", churn + sets);
      CHECK(slurp(out / "devices.csv") == slurp(again / "devices.csv"));
      CHECK(slurp(out / "metrics.csv") == slurp(again / "metrics.csv"));
    }
  }
}

TEST_CASE("faults: stream.while_off lose counts what arrived while the device was off") {
  // 100 samples/s, fluid: exactly 100 samples arrive while dev-a is off from 0.5 s to 1.5 s.
  const std::string sets =
      "--set 'stream={\"rate\":100}' --set 'faults={\"devices\":[{\"device\":\"dev-a\",\"off_s\":[[0.5,1.5]]}]}' "
      "--set training.round_timeout_s=0.2 --set stop.rounds=null --set stop.sim_time_s=2 ";
  const fs::path lose = run_two_devices("faults-lose", sets + "--set stream.while_off=lose");
  const fs::path keep = run_two_devices("faults-buffer", sets);
  const auto lost = read_csv(lose / "devices.csv")[0];
  const auto kept = read_csv(keep / "devices.csv")[0];
  CHECK(count(lost, "samples_lost_offline") == 100);
  CHECK(count(kept, "samples_lost_offline") == 0);
  CHECK(count(kept, "samples_arrived") == 200);  // floor(100 x 2 s)
  CHECK(count(lost, "samples_arrived") == 100);
  for (const auto& d : {lost, kept}) {
    CHECK(count(d, "samples_arrived") == count(d, "samples_trained") + count(d, "samples_dropped") +
                                             count(d, "buffer_final_samples") + count(d, "samples_lost_in_faults") +
                                             count(d, "samples_held_at_end"));
  }
  CHECK(read_json(lose / "summary.json")["samples_lost_offline"] == 100);
  check_ledgers(lose);
  // Still off when the run ends: what arrived since it went off is lost too.
  const fs::path to_end = run_two_devices(
      "faults-lose-to-end", "--set 'stream={\"rate\":100,\"while_off\":\"lose\"}' "
                            "--set 'faults={\"devices\":[{\"device\":\"dev-a\",\"off_s\":[[1.5,9]]}]}' "
                            "--set training.round_timeout_s=0.2 --set stop.rounds=null --set stop.sim_time_s=2");
  const auto a = read_csv(to_end / "devices.csv")[0];
  CHECK(count(a, "samples_lost_offline") == 50);
  CHECK(count(a, "samples_arrived") == 150);
}
