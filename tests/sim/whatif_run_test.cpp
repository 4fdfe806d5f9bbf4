// Whole runs with platform what-ifs and device selectors, checked against the time model by hand
// (two_devices.hpp: CM02 transfers take latency + size/bandwidth): a faster uplink shortens each
// round's upload exactly as the model says, one direction of a SPLITDUPLEX link can be set alone,
// the run folder keeps the platform it simulated, and summary.json records the what-ifs.
#include <doctest/doctest.h>

#include <algorithm>

#include "two_devices.hpp"

using namespace test;

namespace {

// The comm time of dev-a over the run, and the run's length, for dev-a's links `up` and `down`.
double comm_a(const Link& up, const Link& down) { return kRounds * (transfer_s(up) + transfer_s(down)); }
double run_length(const Link& a_up, const Link& a_down) {
  const Device& a = kDevices[0];
  const Device& b = kDevices[1];
  const double slowest = std::max(transfer_s(a_down) + compute_s(a) + transfer_s(a_up),
                                  transfer_s(b.down) + compute_s(b) + transfer_s(b.up));
  return kRounds * (slowest + apply_s(2));
}

}  // namespace

TEST_CASE("what-if run: doubling a link's bandwidth halves its transfer time as the time model says") {
  const fs::path out = run_two_devices("whatif-bandwidth", "--set platform.links.a-up.bandwidth=16Mbps");
  const Link doubled{0.010, 2e6};  // 16 Mbit/s = 2 MB/s, twice the file's 1 MBps
  const auto devices = read_csv(out / "devices.csv");
  REQUIRE(devices.size() == 2);
  CHECK(num(devices[0], "comm_s") == doctest::Approx(comm_a(doubled, kDevices[0].down)).epsilon(1e-9));
  CHECK(num(devices[1], "comm_s") ==
        doctest::Approx(kRounds * (transfer_s(kDevices[1].up) + transfer_s(kDevices[1].down))).epsilon(1e-9));
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["sim_time_s"].get<double>() == doctest::Approx(run_length(doubled, kDevices[0].down)).epsilon(1e-9));
  CHECK(summary["platform_overrides"] ==
        nlohmann::json::parse(R"([{"key": "platform.links.a-up.bandwidth", "value": "16Mbps", "before": "1MBps"}])"));
  // The folder keeps the platform it simulated; the resolved scenario keeps the what-if.
  const std::string platform = slurp(out / "platform.xml");
  CHECK(platform.find("<link id=\"a-up\" bandwidth=\"1.6e+07bps\" latency=\"10ms\"/>") != std::string::npos);
  CHECK(read_json(out / "scenario.json")["platform"]["links"]["a-up"]["bandwidth"] == 16e6);
  // links.csv reports the bandwidth simulated.
  for (const auto& row : read_csv(out / "links.csv")) {
    if (row.at("link") == "a-up") CHECK(num(row, "bandwidth_bps") == 16e6);
  }
}

TEST_CASE("what-if run: one direction of a SPLITDUPLEX link is set when the platform is loaded") {
  // two-devices-duplex.xml gives dev-a one 4 MBps link each way; a_UP at 1 MBps makes it two-devices.xml.
  const fs::path out = run_two_devices("whatif-direction",
                                       "--set platform=two-devices-duplex.xml "
                                       "--set platform.links.a_UP.bandwidth=1MBps");
  const auto devices = read_csv(out / "devices.csv");
  REQUIRE(devices.size() == 2);
  CHECK(num(devices[0], "comm_s") == doctest::Approx(comm_a(kDevices[0].up, kDevices[0].down)).epsilon(1e-9));
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["sim_time_s"].get<double>() ==
        doctest::Approx(run_length(kDevices[0].up, kDevices[0].down)).epsilon(1e-9));
  CHECK(summary["platform_overrides"][0]["before"] == "4MBps");
  CHECK(slurp(out / "platform.xml").find("a_UP set when the platform is loaded") != std::string::npos);
  // Without the what-if dev-a's uplink is 4 MBps: a different time.
  const fs::path plain = run_two_devices("whatif-direction-plain", "--set platform=two-devices-duplex.xml");
  const Link fast_up{0.010, 4e6};
  CHECK(num(read_csv(plain / "devices.csv")[0], "comm_s") ==
        doctest::Approx(comm_a(fast_up, kDevices[0].down)).epsilon(1e-9));
  CHECK_FALSE(fs::exists(plain / "platform.xml"));  // unchanged: the scenario names the file
}

TEST_CASE("what-if run: validate prints the what-ifs, and a bad name is one line with did-you-mean, exit 2") {
  const std::string scenario = (kData / "two-devices.json").string();
  const Result ok = run_cli("validate " + scenario + " --set platform.hosts.dev-a.speed=2Gf", "whatif-validate");
  INFO(ok.err);
  CHECK(ok.status == 0);
  CHECK(ok.out.find("what-if   platform.hosts.dev-a.speed = 2Gf (was 1Gf)\n") != std::string::npos);
  CHECK(ok.out.find("device dev-a on dev-a: 2 GFLOP/s per core") != std::string::npos);
  const Result bad = run_cli("run " + scenario + " --set platform.links.a-upp.bandwidth=1Gbps", "whatif-bad");
  CHECK(bad.status == 2);
  CHECK(bad.err ==
        "edgetrain: platform.links.a-upp: no link \"a-upp\" in platform two-devices.xml (did you mean \"a-up\"?)\n");
}

TEST_CASE("what-if run: devices named by a selector run, listed in devices.csv, the selector kept") {
  const fs::path out = run_two_devices("whatif-selector", "--set 'devices={\"hosts\": \"dev-*\"}'");
  const auto devices = read_csv(out / "devices.csv");
  REQUIRE(devices.size() == 2);
  CHECK(devices[0].at("device") == "dev-a");
  CHECK(devices[1].at("device") == "dev-b");
  CHECK(read_json(out / "scenario.json")["devices"] == nlohmann::json::parse(R"({"hosts": "dev-*", "matched": 2})"));
  CHECK(num(devices[0], "comm_s") == doctest::Approx(comm_a(kDevices[0].up, kDevices[0].down)).epsilon(1e-9));
}

TEST_CASE("what-if run: a fleet description is the platform, with a class count set from the command line") {
  const fs::path out = fresh_dir("whatif-fleet");
  const Result r = run_cli("run " + (kData / "factory-jetson.json").string() + " --quiet --out " + out.string() +
                               " --set platform.classes.jetson.count=6",
                           "whatif-fleet");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto devices = read_csv(out / "devices.csv");
  REQUIRE(devices.size() == 6);
  const std::string platform = slurp(out / "platform.xml");  // the generated fleet, as simulated
  for (const auto& row : devices) {
    const size_t at = platform.find("<host id=\"" + row.at("host") + "\"");
    REQUIRE(at != std::string::npos);
    CHECK(platform.substr(at, platform.find("</host>", at) - at).find("<prop id=\"class\" value=\"jetson\"/>") !=
          std::string::npos);
  }
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["status"] == "completed");
  CHECK(summary["rounds"] == 2);
  CHECK(summary["platform_overrides"] ==
        nlohmann::json::parse(R"([{"key": "platform.classes.jetson.count", "value": 6, "before": 24}])"));
  const auto scenario = read_json(out / "scenario.json");
  CHECK(scenario["devices"] == nlohmann::json::parse(R"({"class": "jetson", "matched": 6})"));
  CHECK(scenario["platform"]["classes"]["jetson"]["count"] == 6);
}
