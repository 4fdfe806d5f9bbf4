// Whole runs on platforms of every routing kind, Wi-Fi included, and the platform values and
// SimGrid flags SimGrid would abort on: those exit 2 with one line, before SimGrid sees them.
#include <doctest/doctest.h>

#include <algorithm>

#include "two_devices.hpp"

using namespace test;

namespace {

Result run_on(const std::string& command, const std::string& sets, const std::string& tag) {
  return run_cli(
      command + " " + (kData / "two-devices.json").string() + " --quiet --out " + fresh_dir(tag).string() + " " + sets,
      tag);
}

std::string platform(const std::string& file) { return "--set platform=" + (kData / file).string(); }

// Exit 2 and exactly one line on stderr containing `needle`, for both run and validate.
void check_refused(const std::string& sets, const std::string& needle, const std::string& tag) {
  for (const std::string command : {"run", "validate"}) {
    const Result r = run_on(command, sets, tag + "-" + command);
    INFO(command, ": ", r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find(needle) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

fs::path write_platform(const std::string& tag, const std::string& zone_body) {
  const fs::path dir = fresh_dir(tag);
  std::ofstream(dir / "p.xml") << "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM "
                                  "\"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n"
                               << zone_body << "</platform>\n";
  return dir / "p.xml";
}

double comm_s(const fs::path& out, size_t device) { return num(read_csv(out / "devices.csv").at(device), "comm_s"); }

}  // namespace

TEST_CASE("Floyd and Dijkstra zones route through a router: transfer = sum of latencies + size / slowest link") {
  for (const std::string file : {"routing-floyd.xml", "routing-dijkstra.xml"}) {
    INFO(file);
    const fs::path out = run_two_devices("routed-" + file, platform(file));
    // dev-a: link a (1 MB/s, 10 ms) then s (12.5 MB/s, 1 ms); dev-b: b (2 MB/s, 5 ms) then s.
    // Their flows share s without saturating it, so each runs at its own access rate.
    CHECK(comm_s(out, 0) == doctest::Approx(kRounds * 2 * transfer_s({0.011, 1e6})).epsilon(1e-9));
    CHECK(comm_s(out, 1) == doctest::Approx(kRounds * 2 * transfer_s({0.006, 2e6})).epsilon(1e-9));
  }
}

TEST_CASE("Cluster and Vivaldi zones run") {
  const fs::path cluster =
      run_two_devices("routing-cluster",
                      platform("routing-cluster.xml") + " --set server=node-0 --set 'devices=[\"node-1\",\"node-2\"]'");
  CHECK(read_json(cluster / "summary.json")["rounds"] == kRounds);
  const fs::path vivaldi = run_two_devices("routing-vivaldi", platform("routing-vivaldi.xml"));
  CHECK(read_json(vivaldi / "summary.json")["rounds"] == kRounds);
  // Vivaldi latency is the coordinates' distance in ms: dev-a (30 40 5) to server (0 0 1) is 50 + 5 + 1 ms.
  CHECK(comm_s(vivaldi, 0) > kRounds * 2 * 0.056);
}

TEST_CASE("Wi-Fi stations get their rate level: a lone transfer takes wan latency + size / station rate") {
  // tests/sim/data/wifi.xml: rates 4 MB/s (level 0, dev-a) and 1 MB/s (level 1, dev-b), wan 100 MB/s, 10 ms.
  const Link wan_at_level0{0.010, 4e6}, wan_at_level1{0.010, 1e6};
  const fs::path a = run_two_devices("wifi-a", platform("wifi.xml") + " --set 'devices=[\"dev-a\"]'");
  CHECK(comm_s(a, 0) == doctest::Approx(kRounds * 2 * transfer_s(wan_at_level0)).epsilon(1e-9));
  const fs::path b = run_two_devices("wifi-b", platform("wifi.xml") + " --set 'devices=[\"dev-b\"]'");
  CHECK(comm_s(b, 0) == doctest::Approx(kRounds * 2 * transfer_s(wan_at_level1)).epsilon(1e-9));
  // Both stations at once share the air: every byte crosses it once, and each is slower than alone.
  const fs::path both = run_two_devices("wifi-both", platform("wifi.xml"));
  CHECK(comm_s(both, 0) > comm_s(a, 0));
  CHECK(comm_s(both, 1) > comm_s(b, 0) * 0.999);
  for (const auto& row : read_csv(both / "links.csv")) {
    if (row.at("link") == "air" || row.at("link") == "wan") CHECK(count(row, "bytes") == 4 * kRounds * kDenseMessage);
    if (row.at("link") == "air") CHECK(num(row, "bandwidth_bps") == 32e6);  // its level-0 rate
  }
  const Result v = run_on("validate", platform("wifi.xml"), "wifi-validate");
  CHECK(v.status == 0);
}

TEST_CASE("platforms edgetrain cannot run are refused before SimGrid sees them") {
  check_refused(platform("routing-none.xml"),
                "devices[0]: host \"dev-a\" is in zone \"edge\" with routing=\"None\", which has no routes", "none");
  check_refused(platform("routing-vivaldi-hosts.xml"),
                "routing-vivaldi-hosts.xml:8: host \"dev-b\": a host or router in Vivaldi zone \"test\" needs "
                "coordinates=\"x y h\"",
                "vivaldi-no-coords");
  // A Vivaldi zone holding a sub-zone (as SimGrid's cloud.xml): routes into the sub-zone abort in SimGrid 3.32.
  const fs::path nested = write_platform(
      "vivaldi-nested",
      "<zone id=\"net\" routing=\"Vivaldi\">\n<zone id=\"dc\" routing=\"Full\"><host id=\"server\" speed=\"1Gf\"/>"
      "</zone>\n<peer id=\"dev-a\" speed=\"1Gf\" bw_in=\"1Mbps\" bw_out=\"1Mbps\" coordinates=\"1 2 3\"/>\n"
      "<peer id=\"dev-b\" speed=\"1Gf\" bw_in=\"1Mbps\" bw_out=\"1Mbps\" coordinates=\"3 2 1\"/>\n</zone>\n");
  check_refused("--set platform=" + nested.string(),
                "devices[0]: the route from host \"dev-a\" to \"server\" enters a zone inside Vivaldi zone \"net\"",
                "vivaldi-nested");
}

TEST_CASE("platform values SimGrid aborts on or misreads exit 2 with file and line") {
  const std::string hosts =
      "<zone id=\"z\" routing=\"Full\">\n<host id=\"server\" speed=\"1Gf\"/>\n<host id=\"dev-a\" speed=\"SPEED\" "
      "core=\"CORE\"/>\n<host id=\"dev-b\" speed=\"1Gf\"/>\n<link id=\"l\" bandwidth=\"BW\" latency=\"LAT\"/>\n"
      "<route src=\"dev-a\" dst=\"server\"><link_ctn id=\"l\"/></route>\n"
      "<route src=\"dev-b\" dst=\"server\"><link_ctn id=\"l\"/></route>\n</zone>\n";
  auto with = [&](std::string body, const std::string& key, const std::string& value) {
    return body.replace(body.find(key), key.size(), value);
  };
  auto make = [&](const std::string& tag, const std::string& speed, const std::string& core, const std::string& bw,
                  const std::string& lat) {
    return write_platform(tag, with(with(with(with(hosts, "SPEED", speed), "CORE", core), "BW", bw), "LAT", lat));
  };
  const fs::path good = make("plat-good", "1Gf", "2", "10Mbps", "1ms");
  CHECK(run_on("run", "--set platform=" + good.string(), "plat-good-run").status == 0);
  struct Bad {
    const char *speed, *core, *bw, *lat, *message;
  };
  for (const Bad& b : {Bad{"0f", "1", "10Mbps", "1ms", ":6: host \"dev-a\": speed must be > 0, got \"0f\""},
                       Bad{"-2Gf", "1", "10Mbps", "1ms", ":6: host \"dev-a\": speed must be > 0, got \"-2Gf\""},
                       Bad{"1Gf", "0", "10Mbps", "1ms", ":6: host \"dev-a\": core must be a whole number >= 1"},
                       Bad{"1Gf", "1", "0", "1ms", ":8: link \"l\": bandwidth must be > 0, got \"0\""},
                       Bad{"1Gf", "1", "-1Mbps", "1ms", ":8: link \"l\": bandwidth must be > 0"},
                       Bad{"1Gf", "1", "10Mbps", "-5ms", ":8: link \"l\": latency must be >= 0, got \"-5ms\""}}) {
    const fs::path file = make("plat-bad", b.speed, b.core, b.bw, b.lat);
    check_refused("--set platform=" + file.string(), file.string() + b.message, "plat-bad");
  }
}

TEST_CASE("bad SimGrid flags exit 2 with SimGrid's message on one line") {
  check_refused("--cfg=network/model:bogus", "--cfg=network/model:bogus: Model 'bogus' is invalid!", "cfg-model");
  check_refused("--log=bogus", "--log=bogus: Invalid control string 'bogus'", "log-bogus");
  check_refused("--cfg=network/bogus:1", "--cfg=network/bogus:1: Bad config key: network/bogus", "cfg-key");
  check_refused("--cfg=network/TCP-gamma:abc", "--cfg=network/TCP-gamma:abc: invalid double", "cfg-type");
  check_refused("--cfg=network/model:LV08 --log=xbt_cfg.thres:loud", "--log=xbt_cfg.thres:loud: Unknown priority",
                "log-priority");
  // A good flag still passes through.
  CHECK(run_on("run", "--cfg=network/model:LV08", "cfg-good").status == 0);
  // The platform's own <config> properties are SimGrid flags too.
  const fs::path p = write_platform("plat-config",
                                    "<config><prop id=\"network/TCP-gamma\" value=\"lots\"/></config>\n"
                                    "<zone id=\"z\" routing=\"Full\"><host id=\"server\" speed=\"1Gf\"/></zone>\n");
  check_refused("--set platform=" + p.string(),
                "platform <config> property \"network/TCP-gamma\" = \"lots\": invalid double", "plat-config");
}

TEST_CASE("ns-3: platforms and messages its SimGrid 3.32 binding cannot carry are refused, one-link routes run") {
  const Result quickstart =
      run_cli("validate " + (kSource / "scenarios/quickstart.json").string() + " --cfg=network/model:ns-3", "ns3-qs");
  CHECK(quickstart.status == 2);
  CHECK(quickstart.err.find("--cfg=network/model:ns-3: host \"pi-1\" is not joined to \"cloud\" by routes of exactly "
                            "one link") != std::string::npos);
  CHECK(std::count(quickstart.err.begin(), quickstart.err.end(), '\n') == 1);
  check_refused(platform("wifi.xml") + " --cfg=network/model:ns-3", "edgetrain does not support Wi-Fi zones under ns-3",
                "ns3-wifi");
  check_refused(
      "--cfg=network/model:ns-3 --set training.round_timeout_s=1 "
      "--set 'faults={\"links\":[{\"link\":\"a-up\",\"off_s\":[[0.1,0.2]]}]}'",
      "faults: --cfg=network/model:ns-3: edgetrain does not support faults under ns-3", "ns3-faults");
  check_refused("--cfg=network/model:ns-3 --set 'model.hidden=[512]'",
                "the model's messages are 141392 bytes, and SimGrid 3.32's ns-3 binding aborts on messages over 131072",
                "ns3-big");
  // two-devices.xml: every route is one link, messages are 4496 bytes.
  const fs::path out = run_two_devices("ns3-ok", "--cfg=network/model:ns-3");
  CHECK(read_json(out / "summary.json")["network_model"] == "ns-3");
  CHECK(read_json(out / "summary.json")["bytes_up"] == 2 * kRounds * kDenseMessage);
  CHECK(read_json(out / "summary.json")["capacity"]["peak_utilization"].is_null());  // no solver rates to read
  CHECK(read_json(out / "summary.json")["capacity"]["violations"].empty());
  // Hop by hop through a router, each hop its own one-link route.
  const fs::path hops = run_two_devices("ns3-hops", platform("routing-floyd.xml") + " --cfg=network/model:ns-3");
  CHECK(read_json(hops / "summary.json")["rounds"] == kRounds);
}
