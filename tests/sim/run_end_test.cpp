// The end of a run while transfers are in flight: SimGrid kills every actor still running when the
// run ends (daemons when the last main actor returns, everyone on a stop or a failure), some of
// them inside a transfer or just woken to start one. Each kind ends quietly: device uploads and
// pulls, the downlink couriers (sync models, async pull replies), site aggregators' uplinks, gossip
// exchange couriers. Each case stops at a series of moments spread over the first rounds (so that
// every kind of transfer is cut somewhere, deterministically), and every run must exit 0 with a
// complete results folder whose counters add up. The observer makes no transfer.
#include <doctest/doctest.h>

#include <string>

#include "two_devices.hpp"

using namespace test;

namespace {

// Every file of a results folder, the status, the time split of every device and the bytes.
void check_complete(const fs::path& out, bool flat) {
  for (const char* file : {"scenario.json", "summary.json", "metrics.csv", "devices.csv", "buffers.csv",
                           "buffers_fleet.csv", "links.csv", "staleness.csv", "rounds.csv"}) {
    CAPTURE(file);
    CHECK(fs::is_regular_file(out / file));
  }
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["status"] != "failed");
  CHECK(summary["capacity"]["violations"].empty());
  const double end = summary["sim_time_s"].get<double>();
  int64_t up = 0, down = 0;
  for (const auto& d : read_csv(out / "devices.csv")) {
    CAPTURE(d.at("device"));
    CHECK(num(d, "compute_s") + num(d, "comm_s") + num(d, "wait_s") + num(d, "offline_s") ==
          doctest::Approx(end).epsilon(1e-12));
    up += count(d, "bytes_up");
    down += count(d, "bytes_down");
  }
  if (flat) {  // a hierarchy adds the sites' bytes to the totals
    CHECK(up == summary["bytes_up"].get<int64_t>());
    CHECK(down == summary["bytes_down"].get<int64_t>());
  }
}

// `scenario` with `sets`, stopped at each of `stops` moments evenly spread over (0, until_s).
void stop_during(const std::string& scenario, const std::string& sets, double until_s, int stops,
                 const std::string& tag, bool flat = true) {
  for (int k = 1; k <= stops; ++k) {
    const double at = until_s * k / (stops + 1);
    CAPTURE(at);
    const fs::path out = run_ok(scenario, sets + " --set stop.rounds=null --set stop.sim_time_s=" + std::to_string(at),
                                tag + "-" + std::to_string(k));
    const auto summary = read_json(out / "summary.json");
    CHECK(summary["status"] == "completed");
    CHECK(summary["sim_time_s"].get<double>() == doctest::Approx(at));
    check_complete(out, flat);
  }
}

}  // namespace

TEST_CASE("run end: sync rounds stopped while models go down and gradients go up") {
  // Round 0 on two-devices: dev-b receives at 5.6 ms and uploads until 12.8 ms, dev-a receives at
  // 11.1 ms and uploads until 25.7 ms; every stop below 26 ms cuts a courier's put or an upload.
  stop_during("two-devices.json", "", 0.026, 7, "end-sync");
}

TEST_CASE("run end: async stopped while pulls, pull replies and pushes are in flight") {
  const std::string async = "--set training.mode=async --set training.start_jitter_s=0.003 ";
  stop_during("two-devices.json", async, 0.06, 7, "end-async");
  // AdaComp's compressed pushes and its staleness-scaled learning rate, as in issue 18's run.
  stop_during("two-devices.json",
              async + "--set 'compression={\"kind\":\"adacomp\",\"ratio\":0.1}' --set training.staleness_lr=adacomp", 0.06,
              3, "end-adacomp");
}

TEST_CASE("run end: async stopped at its target or its rounds with models in flight") {
  const std::string async =
      "--set training.mode=async --set training.start_jitter_s=0.003 --set eval.every_s=0.013 "
      "--set 'compression={\"kind\":\"adacomp\",\"ratio\":0.1}' --set training.staleness_lr=adacomp ";
  for (const double target : {0.5, 0.7}) {
    CAPTURE(target);
    const fs::path out = run_ok("two-devices.json",
                                async + "--set stop.rounds=null --set stop.sim_time_s=5 --set stop.target_accuracy=" +
                                    std::to_string(target),
                                "end-target");
    CHECK(read_json(out / "summary.json")["status"] == "target_reached");
    check_complete(out, true);
  }
  for (const int rounds : {6, 7, 31}) {
    CAPTURE(rounds);
    const fs::path out = run_ok("two-devices.json", async + "--set stop.rounds=" + std::to_string(rounds), "end-rounds");
    CHECK(read_json(out / "summary.json")["rounds"] == rounds);
    check_complete(out, true);
  }
}

TEST_CASE("run end: hold (SSP) with a device off or a link down ends cleanly (issue 19, item 6)") {
  // Each of these aborted with "ForcefulKillException ... DownlinkCourier::run" (exit 134): the
  // run ended as the courier was woken to send a released pull's reply.
  const std::string hold = "--set training.mode=async --set training.staleness_policy=hold ";
  const std::string a_off = "--set 'faults={\"devices\":[{\"device\":\"dev-a\",\"off_s\":[[0.02,0.5]]}]}' ";
  const std::string b_off = "--set 'faults={\"devices\":[{\"device\":\"dev-b\",\"off_s\":[[0.01,0.05]]}]}' ";
  const std::string a_link = "--set 'faults={\"links\":[{\"link\":\"a-up\",\"off_s\":[[0.025,0.3]]}]}' ";
  const std::string cases[] = {
      hold + a_link + "--set training.max_staleness=0 --set stop.rounds=6",
      hold + a_off + "--set training.max_staleness=0 --set stop.rounds=30",
      hold + b_off + "--set training.max_staleness=1 --set stop.rounds=30",
      hold + a_link + "--set training.max_staleness=0 --set stop.rounds=30",
      hold + b_off + "--set training.max_staleness=0 --set stop.rounds=null --set stop.target_accuracy=0.6 "
                     "--set stop.sim_time_s=5",
  };
  for (const std::string& sets : cases) {
    CAPTURE(sets);
    check_complete(run_ok("two-devices.json", sets, "end-hold"), true);
  }
  stop_during("two-devices.json", hold + b_off + "--set training.max_staleness=0", 0.1, 4, "end-hold-time");
}

TEST_CASE("run end: hierarchical rounds stopped while devices and site uplinks transfer") {
  const std::string two_sites =
      "--set training.compute=timing-only --set 'devices=[\"dev-c\",\"dev-d\"]' "
      "--set 'topology={\"kind\":\"hierarchical\",\"sites\":{\"site-1\":[\"dev-c\"],\"site-2\":{\"hosts\":\"dev-d\"}}}'";
  // Three cloud rounds take 0.363 s (hierarchical_test.cpp's platform): the stops cut device, site
  // and cloud transfers alike.
  stop_during("hier.json", two_sites, 0.36, 9, "end-hier", false);
}

TEST_CASE("run end: gossip stopped while exchange couriers and local transfers are in flight") {
  // Twelve iterations take 0.211 s; a peer's exchanges go out at once through its couriers.
  stop_during("gossip4.json", "", 0.21, 6, "end-gossip");
  stop_during("gossip4.json", "--set training.compute=timing-only", 0.21, 3, "end-gossip-timing");
}
