// Whole runs with device traces (traces.*), checked by hand on tests/sim/data/two-devices.{json,xml}:
// an availability trace gives each device the gaps between its on intervals as offline time (as
// faults do: restarts, ledgers adding up), a capacity trace its step and transfer times, and bad
// traces are one line and exit status 2.
#include <doctest/doctest.h>

#include "learn/catalogue.hpp"
#include "two_devices.hpp"

using namespace test;

namespace {

// Every device's time splits exactly into compute, communication, waiting and offline time.
void check_ledgers(const fs::path& out) {
  const auto summary = read_json(out / "summary.json");
  for (const auto& d : read_csv(out / "devices.csv")) {
    const double total = num(d, "compute_s") + num(d, "comm_s") + num(d, "wait_s") + num(d, "offline_s");
    CHECK(total == doctest::Approx(summary["sim_time_s"].get<double>()).epsilon(1e-12));
  }
}

std::string traces_set(const std::string& traces) { return "--set 'traces=" + traces + "' "; }

}  // namespace

TEST_CASE("traces: an availability trace gives each device offline time equal to the gaps in its intervals") {
  const fs::path dir = fresh_dir("traces-availability-files");
  // dev-a: on [0, 0.3), [0.5, 0.8), [1, 9): off 0.2 + 0.2 s within the 1.5 s run, back twice.
  // dev-b: on [0.1, 1.25) only: off 0.1 s at the start and from 1.25 s to the end; back once.
  std::ofstream(dir / "on.csv") << "device,start_s,end_s\ndev-a,0.5,0.8\ndev-b,0.1,1.25\ndev-a,0,0.3\ndev-a,1,9\n";
  const std::string sets = "--set training.round_timeout_s=0.1 --set stop.rounds=null --set stop.sim_time_s=1.5 ";
  const fs::path out = run_two_devices("traces-availability",
                                       sets + traces_set("{\"availability\":\"" + (dir / "on.csv").string() + "\"}"));
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["status"] == "completed");
  const double end = summary["sim_time_s"];
  CHECK(end == doctest::Approx(1.5));
  const auto devices = read_csv(out / "devices.csv");
  CHECK(num(devices[0], "offline_s") == doctest::Approx(0.2 + 0.2).epsilon(1e-9));
  CHECK(count(devices[0], "restarts") == 2);
  CHECK(num(devices[1], "offline_s") == doctest::Approx(0.1 + (end - 1.25)).epsilon(1e-9));
  CHECK(count(devices[1], "restarts") == 1);
  CHECK(count(devices[0], "steps") > 0);
  CHECK(count(devices[1], "steps") > 0);
  check_ledgers(out);

  // The same intervals under other names, met in file order (dev-a's rows come first).
  std::ofstream(dir / "renamed.csv") << "phone-7,0,0.3\nphone-9,0.1,1.25\nphone-7,0.5,0.8\nphone-7,1,9\n";
  const fs::path ordered = run_two_devices(
      "traces-availability-order",
      sets + traces_set("{\"availability\":\"" + (dir / "renamed.csv").string() + "\",\"assign\":\"order\"}"));
  CHECK(slurp(ordered / "devices.csv") == slurp(out / "devices.csv"));
}

TEST_CASE("traces: selection available leaves out a device its trace switched off") {
  const fs::path dir = fresh_dir("traces-selection-files");
  std::ofstream(dir / "on.csv") << "dev-b,0,0.01\n";  // dev-b off for good after 10 ms; dev-a always on
  const fs::path out = run_two_devices(
      "traces-selection", "--set training.round_timeout_s=10 --set 'training.selection={\"kind\":\"available\"}' " +
                              traces_set("{\"availability\":\"" + (dir / "on.csv").string() + "\"}"));
  const auto devices = read_csv(out / "devices.csv");
  CHECK(num(devices[0], "offline_s") == 0);
  CHECK(count(devices[0], "rounds_aggregated") == kRounds);
  CHECK(count(devices[1], "rounds_selected") == 1);  // round 0, while it was on
  CHECK(count(devices[1], "restarts") == 0);
  check_ledgers(out);
}

TEST_CASE("traces: a capacity trace gives the step and transfer times computed by hand") {
  // dev-a: 1000 ms per sample of the reference model's forward pass, 4000 kbit/s both ways; dev-b is
  // not in the trace and keeps the platform's speed and links.
  const fs::path dir = fresh_dir("traces-capacity-files");
  std::ofstream(dir / "cap.csv") << "device,compute_ms_per_sample,bandwidth_kbps\ndev-a,1000,4000\n";
  const fs::path out =
      run_two_devices("traces-capacity", traces_set("{\"capacity\":\"" + (dir / "cap.csv").string() + "\"}"));
  const double reference = edgetrain::learn::find_model("mobilenet_v2")->step_flops_per_sample();
  // Three forward passes per sample, scaled by the mlp's training FLOPs over MobileNetV2's.
  const double step_s = 3 * 1.0 * kBatch * kStepFlops / reference;
  const Link traced{kDevices[0].up.latency_s, 4000e3 / 8};  // the up link's latency, the trace's bandwidth
  const Link traced_down{kDevices[0].down.latency_s, 4000e3 / 8};
  const auto devices = read_csv(out / "devices.csv");
  CHECK(num(devices[0], "host_speed_flops") == doctest::Approx(reference / 3.0).epsilon(1e-12));
  CHECK(num(devices[0], "compute_s") == doctest::Approx(kRounds * step_s).epsilon(1e-9));
  CHECK(num(devices[0], "comm_s") ==
        doctest::Approx(kRounds * (transfer_s(traced) + transfer_s(traced_down))).epsilon(1e-9));
  CHECK(num(devices[1], "host_speed_flops") == kDevices[1].speed_flops);
  CHECK(num(devices[1], "compute_s") == doctest::Approx(kRounds * compute_s(kDevices[1])).epsilon(1e-9));
  CHECK(num(devices[1], "comm_s") ==
        doctest::Approx(kRounds * (transfer_s(kDevices[1].up) + transfer_s(kDevices[1].down))).epsilon(1e-9));
  check_ledgers(out);
}

TEST_CASE("traces: a bad trace is one line naming the file and row, exit status 2") {
  const fs::path dir = fresh_dir("traces-bad-files");
  std::ofstream(dir / "overlap.csv") << "dev-a,0,10\ndev-a,5,20\n";
  std::ofstream(dir / "unknown.csv") << "dev-a,0,10\ndev-c,0,10\n";
  std::ofstream(dir / "short.csv") << "x,100,5000\n";
  const std::string run = "run " + (kData / "two-devices.json").string() + " --quiet --out " +
                          fresh_dir("traces-bad-out").string() + " --set training.round_timeout_s=1 ";
  auto error = [&](const std::string& traces, const std::string& tag) {
    const Result r = run_cli(run + traces_set(traces), tag);
    CHECK(r.status == 2);
    return r.err;
  };
  CHECK(error("{\"availability\":\"" + (dir / "overlap.csv").string() + "\"}", "traces-bad-overlap") ==
        "edgetrain: traces.availability: " + (dir / "overlap.csv").string() +
            ":2: device \"dev-a\": interval [5, 20) overlaps [0, 10) of line 1\n");
  CHECK(error("{\"availability\":\"" + (dir / "unknown.csv").string() + "\"}", "traces-bad-unknown") ==
        "edgetrain: traces.availability: " + (dir / "unknown.csv").string() +
            ":2: no device named \"dev-c\" in the scenario (traces.assign name); did you mean \"dev-a\"?\n");
  CHECK(error("{\"capacity\":\"" + (dir / "short.csv").string() + "\",\"assign\":\"random\"}", "traces-bad-short") ==
        "edgetrain: traces.capacity: " + (dir / "short.csv").string() +
            ": 1 device in the trace, fewer than the scenario's 2 (traces.assign random gives each device its own)\n");
}

TEST_CASE("traces: a fleet class's availability trace switches its generated devices off in the gaps") {
  // One trace device, on [0.2, 0.5) and [0.7, 9): both phones draw it; off 0.2 + 0.2 s in the 1 s run.
  const fs::path dir = fresh_dir("traces-fleet");
  std::ofstream(dir / "on.csv") << "device,start_s,end_s\nx,0.2,0.5\nx,0.7,9\n";
  std::ofstream(dir / "fleet.json") << R"({
    "classes": {"phone": {"count": 2, "speed": "1Gf", "links": "lte", "availability_trace": "on.csv"}},
    "link_classes": {"lte": {"up": "8Mbps", "down": "32Mbps", "latency": "10ms"}},
    "wan": {"bandwidth": "1Gbps", "latency": "5ms"}
  })";
  std::ofstream(dir / "scenario.json") << R"({
    "platform": "fleet.json", "server": "cloud", "devices": {"class": "phone"},
    "dataset": {"name": "synthetic", "train_samples": 200, "shape": [1, 8, 8], "classes": 4},
    "model": {"name": "mlp", "hidden": [16]},
    "training": {"mode": "sync", "batch_size": 8, "round_timeout_s": 0.1},
    "stop": {"sim_time_s": 1}
  })";
  const fs::path out = fresh_dir("traces-fleet-out");
  const Result r =
      run_cli("run " + (dir / "scenario.json").string() + " --quiet --out " + out.string(), "traces-fleet");
  INFO(r.err);
  REQUIRE(r.status == 0);
  for (const auto& d : read_csv(out / "devices.csv")) {
    CHECK(num(d, "offline_s") == doctest::Approx(0.2 + 0.2).epsilon(1e-9));
    CHECK(count(d, "restarts") == 2);
  }
  check_ledgers(out);
  // Synchronous rounds without a timeout would wait for a device that is off: refused.
  const Result no_timeout = run_cli("run " + (dir / "scenario.json").string() + " --quiet --out " + out.string() +
                                        " --set training.round_timeout_s=null",
                                    "traces-fleet-no-timeout");
  CHECK(no_timeout.status == 2);
  CHECK(no_timeout.err ==
        "edgetrain: training.round_timeout_s: required in synchronous rounds when devices follow an availability trace "
        "(host phone-0 of the fleet's platform does)\n");
}

TEST_CASE("traces: most-data-fastest gives the device with more training samples the faster row") {
  // A Dirichlet partition splits the 400 samples unevenly; the fast row is 10 ms per sample, the slow 1000 ms.
  const fs::path dir = fresh_dir("traces-most-data");
  std::ofstream(dir / "cap.csv") << "fast,10,8000\nslow,1000,100\n";
  const double reference = edgetrain::learn::find_model("mobilenet_v2")->step_flops_per_sample();
  char fast[32], slow[32];
  std::snprintf(fast, sizeof fast, "%.3g GFLOP/s", reference / (3 * 0.010) / 1e9);
  std::snprintf(slow, sizeof slow, "%.3g GFLOP/s", reference / (3 * 1.0) / 1e9);
  for (const std::string assign : {"most-data-fastest", "most-data-slowest"}) {
    CAPTURE(assign);
    const Result r =
        run_cli("validate " + (kData / "two-devices.json").string() +
                    " --set 'dataset.partition={\"kind\":\"dirichlet\",\"alpha\":0.3}' " +
                    traces_set("{\"capacity\":\"" + (dir / "cap.csv").string() + "\",\"assign\":\"" + assign + "\"}"),
                "traces-" + assign);
    REQUIRE(r.status == 0);
    // "  device dev-a on dev-a: 0.602 GFLOP/s per core, 183 training samples, batch 8"
    std::vector<std::pair<long, std::string>> devices;  // (samples, line)
    for (const std::string& line : lines_of(r.out)) {
      if (line.rfind("  device ", 0) != 0) continue;
      const size_t comma = line.find(", ");
      devices.emplace_back(std::stol(line.substr(comma + 2)), line);
    }
    REQUIRE(devices.size() == 2);
    REQUIRE(devices[0].first != devices[1].first);
    const auto& more = devices[0].first > devices[1].first ? devices[0] : devices[1];
    const auto& fewer = devices[0].first > devices[1].first ? devices[1] : devices[0];
    const bool fastest = assign == "most-data-fastest";
    CHECK(more.second.find(fastest ? fast : slow) != std::string::npos);
    CHECK(fewer.second.find(fastest ? slow : fast) != std::string::npos);
  }
}
