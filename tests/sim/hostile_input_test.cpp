// Whole runs against hostile input of the classes issue 19 found: SimGrid flags edgetrain does
// not support (the thread factory deadlocked), a platform that is a device, a hierarchical run
// whose round timeout is shorter than any transfer (it never ended), a gossip graph too large for
// the memory (SimGrid's calloc aborted) and a signal while a gossip graph is set up.
#include <doctest/doctest.h>

#include <fstream>

#include "cli_helpers.hpp"
#include "process_helpers.hpp"

using namespace test;

namespace {

// A gossip fleet of `devices` hosts in one site (timing-only, a complete graph by default).
fs::path gossip_fleet(const std::string& tag, int devices) {
  const fs::path dir = fresh_dir(tag);
  std::ofstream(dir / "fleet.json") << R"({"name": "g", "seed": 1, "devices": )" << devices << R"(,
    "classes": {"pi": {"share": 1, "speed": "2Gf", "cores": 4, "links": {"lan": 1}}},
    "link_classes": {"lan": {"up": "100Mbps", "down": "100Mbps", "latency": "1ms"}},
    "sites": {"s": {"count": 1, "uplink": {"up": "10Gbps", "down": "10Gbps", "latency": "1ms"}}},
    "wan": {"bandwidth": "100Gbps", "latency": "1ms"},
    "cloud": {"host": "cloud", "speed": "80Gf", "cores": 32, "ingress": {"bandwidth": "25Gbps", "latency": "1ms"}}})";
  std::ofstream(dir / "g.json") << R"({"name": "g", "seed": 1, "platform": "fleet.json", "server": "cloud",
    "devices": {"role": "device"}, "dataset": {"name": "fashion-mnist"}, "model": {"name": "mlp"},
    "training": {"compute": "timing-only", "mode": "sync", "batch_size": 32},
    "topology": {"kind": "gossip", "graph": "complete"}, "stop": {"rounds": 1}})";
  return dir / "g.json";
}

}  // namespace

TEST_CASE("SimGrid flags: only the ones edgetrain supports run, the thread factory is refused before simulating") {
  const std::string two = (kData / "two-devices.json").string() + " ";
  Result r = run_cli("validate " + two + "--cfg=contexts/factory:thread", "cfg-thread");
  CHECK(r.status == 2);
  CHECK(r.err ==
        "edgetrain: --cfg=contexts/factory:thread: contexts/factory thread is not supported by edgetrain (use raw, "
        "ucontext or boost; the thread factory deadlocks when the run ends)\n");
  for (const char* flag : {"--cfg=contexts/nthreads:4", "--cfg=plugin:link_energy", "--cfg=contexts/stack-size:16",
                           "'--cfg=network/model:CM02 contexts/factory:thread'"}) {
    CAPTURE(flag);
    r = run_cli("validate " + two + flag, "cfg-other");
    CHECK(r.status == 2);
    CHECK(r.err.find("is not supported by edgetrain") != std::string::npos);
    CHECK(lines_of(r.err).size() == 1);
  }
  // The supported factories and model keys run.
  const fs::path out = fresh_dir("cfg-ucontext");
  r = run_cli("run " + two + "--quiet --out " + out.string() +
                  " --set stop.rounds=2 --cfg=contexts/factory:ucontext --cfg=network/optim:Full",
              "cfg-ucontext");
  CHECK(r.status == 0);
}

TEST_CASE("a platform that is not a regular file is refused at once (SimGrid reads it again)") {
  const Result r =
      run_cli("validate " + (kData / "two-devices.json").string() + " --set platform=/dev/zero", "platform-zero");
  CHECK(r.status == 2);
  CHECK(r.err ==
        "edgetrain: /dev/zero: the platform file must be a regular file, not a pipe, FIFO or device (SimGrid reads "
        "the platform again after edgetrain checked it)\n");
}

TEST_CASE("hierarchical: a round timeout shorter than any transfer still ends (site rounds keep their version)") {
  const fs::path out = fresh_dir("hier-short-timeout");
  Child c = start_cli({"run", (kData / "hier.json").string(), "--quiet", "--out", out.string(), "--set",
                       "training.compute=timing-only", "--set", "devices=[\"dev-c\",\"dev-d\"]", "--set",
                       "stop.rounds=3", "--set",
                       "topology={\"kind\":\"hierarchical\",\"sites\":{\"site-1\":[\"dev-c\"],\"site-2\":{\"hosts\":"
                       "\"dev-d\"}}}",
                       "--set", "training.round_timeout_s=\"1ms\""},
                      "hier-short-timeout");
  const Ended e = wait_cli(c, 60);
  REQUIRE_FALSE(e.timed_out);
  CHECK(e.result.status == 0);
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["rounds"] == 3);
  CHECK(summary["status_reason"] == "stop.rounds reached");
  CHECK(summary["empty_rounds"].get<int64_t>() > 0);  // the timeout did cut rounds short
}

TEST_CASE("gossip: the memory estimate counts the exchanges, and refuses a graph too large before building it") {
  const fs::path small = gossip_fleet("gossip-estimate-small", 50);
  Result r = run_cli("validate " + small.string(), "gossip-estimate-small");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("gossip exchanges 51 MB") != std::string::npos);  // 50 x 49 directions x 20.8 KB
  // 20,000 devices: 4 x 10^8 directions would be 8.32 TB, refused without building 2 x 10^8 edges.
  const fs::path huge = gossip_fleet("gossip-estimate-huge", 20000);
  const auto start = std::chrono::steady_clock::now();
  r = run_cli("validate " + huge.string(), "gossip-estimate-huge");
  CHECK(r.status == 2);
  CHECK(r.err.rfind("edgetrain: scenario needs about 8.32 TB", 0) == 0);
  CHECK(r.err.find("gossip exchanges 8.32 TB") != std::string::npos);
  CHECK(seconds_since(start) < 60);
}

TEST_CASE("gossip: SIGTERM while a large graph is set up ends the run promptly, exit 130") {
  // 300 devices, complete: 89,700 couriers, several seconds of set-up before the clock starts.
  const fs::path scenario = gossip_fleet("gossip-setup-signal", 300);
  const fs::path out = scenario.parent_path() / "out";
  Child c = start_cli({"run", scenario.string(), "--out", out.string()}, "gossip-setup-signal");
  REQUIRE(wait_until([&] { return catches(c.pid, SIGTERM) || !running(c); }, 60));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // the fleet is generated and loaded by then
  const bool simulating = err_has(c, "edgetrain: g: 300 devices");
  ::kill(c.pid, SIGTERM);
  const auto sent = std::chrono::steady_clock::now();
  const Ended e = wait_cli(c, 60);
  CHECK(e.result.status == 130);
  // A bound against the hang (still running 30 s after SIGTERM before the fix), not a measure: about 0.3 s
  // alone, several seconds when CI runs it beside other tests.
  CHECK(seconds_since(sent) < 10);
  INFO(e.result.err);
  if (!simulating) {
    CHECK(e.result.err.find("edgetrain: interrupted while setting up the gossip exchanges (nothing was simulated or "
                            "written)") != std::string::npos);
    CHECK_FALSE(fs::exists(out));
  }
}
