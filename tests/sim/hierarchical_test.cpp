// Hierarchical aggregation (topology.kind hierarchical): one site equals the flat run, cloud rounds
// timed by hand from the documented time model, site_rounds, bytes per level, and bad input.
#include <doctest/doctest.h>

#include <cmath>

#include "cli_helpers.hpp"

using namespace test;

namespace {

fs::path run_hier(const std::string& tag, const std::string& sets) { return run_ok("hier.json", sets, tag); }

// Two sites, one device each, behind thin uplinks, timing-only.
const std::string kTwoSites =
    "--set training.compute=timing-only --set 'devices=[\"dev-c\",\"dev-d\"]' --set stop.rounds=3 "
    "--set 'topology={\"kind\":\"hierarchical\",\"sites\":{\"site-1\":[\"dev-c\"],\"site-2\":{\"hosts\":\"dev-d\"}}}'";

std::map<std::string, int64_t> link_bytes(const fs::path& out) {
  std::map<std::string, int64_t> bytes;
  for (const auto& l : read_csv(out / "links.csv")) bytes[l.at("link")] = count(l, "bytes");
  return bytes;
}

}  // namespace

TEST_CASE("hierarchical: one site on a host routed like the server trains exactly as the flat run") {
  const fs::path flat = run_hier("hier-flat", "");
  const fs::path hier = run_hier(
      "hier-one-site", "--set 'topology={\"kind\":\"hierarchical\",\"sites\":{\"edge\":[\"dev-a\",\"dev-b\"]}}'");
  const auto flat_metrics = read_csv(flat / "metrics.csv"), hier_metrics = read_csv(hier / "metrics.csv");
  REQUIRE(flat_metrics.size() == hier_metrics.size());
  REQUIRE(flat_metrics.size() >= 2);
  for (size_t i = 0; i < flat_metrics.size(); ++i) {
    CAPTURE(i);
    CHECK(count(hier_metrics[i], "round") == count(flat_metrics[i], "round"));
    CHECK(std::fabs(num(hier_metrics[i], "test_accuracy") - num(flat_metrics[i], "test_accuracy")) <= 1e-5);
    CHECK(std::fabs(num(hier_metrics[i], "test_loss") - num(flat_metrics[i], "test_loss")) <= 1e-5);
  }
  CHECK(count(hier_metrics.back(), "round") == 6);
  // The device actor is the same: the same steps, samples and compute time per device.
  const auto flat_devices = read_csv(flat / "devices.csv"), hier_devices = read_csv(hier / "devices.csv");
  REQUIRE(flat_devices.size() == hier_devices.size());
  for (size_t i = 0; i < flat_devices.size(); ++i) {
    for (const char* column : {"device", "steps", "samples_trained", "bytes_up", "bytes_down"}) {
      CAPTURE(column);
      CHECK(hier_devices[i].at(column) == flat_devices[i].at(column));
    }
    // The same compute intervals, summed at other clock values: equal to the clock's rounding.
    CHECK(num(hier_devices[i], "compute_s") == doctest::Approx(num(flat_devices[i], "compute_s")).epsilon(1e-12));
  }
  const auto summary = read_json(hier / "summary.json");
  CHECK(summary["topology"] == "hierarchical");
  CHECK(summary["sites"][0]["host"] == "edge");
  CHECK(summary["sites"][0]["site_rounds"] == 6);
  CHECK(summary["sites"][0]["deltas_aggregated"] == 6);
}

TEST_CASE("hierarchical: a cloud round is the site round, the delta over the thin uplink and the cloud's apply") {
  const fs::path out = run_hier("hier-two-sites", kTwoSites);
  const auto summary = read_json(out / "summary.json");
  const auto P = summary["model_params"].get<int64_t>();
  const double step_flops = summary["model_step_flops_per_sample"].get<double>();
  const double M = 64 + 4.0 * P;  // every message: the dense model, update or delta plus the header
  const double downlink = 0.010 + M / 100e3, uplink = 0.010 + M / 100e3;  // s1-down, s1-up
  const double device_down = 0.001 + M / 1e6, device_up = 0.001 + M / 1e6;
  const double compute = step_flops * 8 / 1e9;  // batch 8 on a 1 Gf device
  const double site_apply = 6.0 * P / 5e9;      // one update: params x (1 + 5) on the 5 Gf site
  const double cloud_apply = 4.0 * P / 10e9;    // two deltas: params x (2 + 2) on the 10 Gf server
  const double site_round = device_down + compute + device_up + site_apply;
  const double cloud_round = downlink + site_round + uplink + cloud_apply;
  const auto rounds = read_csv(out / "rounds.csv");
  REQUIRE(rounds.size() == 3);
  for (size_t r = 0; r < rounds.size(); ++r) {
    CAPTURE(r);
    CHECK(num(rounds[r], "end_s") == doctest::Approx(cloud_round * static_cast<double>(r + 1)).epsilon(1e-9));
    CHECK(count(rounds[r], "selected") == 2);  // every site is asked each cloud round
    CHECK(count(rounds[r], "updates") == 2);   // both sites
    CHECK(count(rounds[r], "missing") == 0);
  }
  // A round of the run is a cloud round.
  CHECK(summary["round_s"]["count"] == 3);
  for (const char* figure : {"mean", "median", "p95", "max"})
    CHECK(summary["round_s"][figure].get<double>() == doctest::Approx(cloud_round).epsilon(1e-9));
  CHECK(summary["rounds"] == 3);
  // Bytes per level add up to what the links carried.
  const auto bytes = link_bytes(out);
  const auto& level = summary["bytes_by_level"];
  CHECK(level["device_to_site"] == bytes.at("c-up") + bytes.at("d-up"));
  CHECK(level["site_to_device"] == bytes.at("c-down") + bytes.at("d-down"));
  CHECK(level["site_to_cloud"] == bytes.at("s1-up") + bytes.at("s2-up"));
  CHECK(level["cloud_to_site"] == bytes.at("s1-down") + bytes.at("s2-down"));
  CHECK(level["site_to_cloud"] == static_cast<int64_t>(2 * 3 * M));
  CHECK(level["device_to_site"] == summary["bytes_up"]);
  // The server is the cloud: what crossed into and out of it is the sites' deltas and models.
  CHECK(summary["bytes_to_server"] == level["site_to_cloud"]);
  CHECK(summary["bytes_from_server"] == level["cloud_to_site"]);
}

TEST_CASE("hierarchical: site_rounds 3 runs three site rounds per cloud round") {
  const fs::path out = run_hier("hier-site-rounds", kTwoSites + " --set topology.site_rounds=3");
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["rounds"] == 3);
  for (const auto& site : summary["sites"]) {
    CHECK(site["site_rounds"] == 9);
    CHECK(site["deltas_aggregated"] == 3);
  }
  for (const auto& d : read_csv(out / "devices.csv")) CHECK(count(d, "steps") == 9);
  CHECK(read_csv(out / "rounds.csv").size() == 3);
  // One model and one delta per site per cloud round, whatever the site rounds.
  const auto bytes = link_bytes(out);
  CHECK(bytes.at("s1-up") == bytes.at("s1-down"));
  CHECK(bytes.at("c-up") == 3 * bytes.at("s1-up"));
}

TEST_CASE("hierarchical: bad sites and topology keys are one clear line, exit 2") {
  const std::string two = "--set training.compute=timing-only --set 'devices=[\"dev-c\",\"dev-d\"]' ";
  auto fails = [&](const std::string& sets, const std::string& expected, const std::string& tag) {
    const Result r = run_cli(
        "run " + (kData / "hier.json").string() + " --quiet --out " + fresh_dir(tag).string() + " " + two + sets, tag);
    CAPTURE(sets);
    CHECK(r.status == 2);
    CHECK(lines_of(r.err).size() == 1);
    CHECK(r.err.find(expected) != std::string::npos);
    if (r.err.find(expected) == std::string::npos) MESSAGE(r.err);
  };
  fails("--set 'topology={\"kind\":\"hierarchical\",\"sites\":{\"nowhere\":[\"dev-c\",\"dev-d\"]}}'",
        "topology.sites.nowhere: no host named \"nowhere\"", "hier-bad-host");
  fails("--set 'topology={\"kind\":\"hierarchical\",\"sites\":{\"dev-c\":[\"dev-d\"]}}'",
        "topology.sites.dev-c: host \"dev-c\" runs device \"dev-c\"", "hier-device-host");
  fails(
      "--set "
      "'topology={\"kind\":\"hierarchical\",\"sites\":{\"site-1\":[\"dev-c\",\"dev-d\"],\"site-2\":[\"dev-d\"]}}'",
      "device \"dev-d\" is already in site \"site-1\"", "hier-two-sites");
  fails("--set 'topology={\"kind\":\"hierarchical\",\"sites\":{\"site-1\":[\"dev-c\"]}}'",
        "topology.sites: device \"dev-d\" is in no site", "hier-no-site");
  fails("--set 'topology={\"kind\":\"hierarchical\",\"sites\":{\"site-1\":[\"dev-c\",\"dev-d\"]}}'",
        "devices[1]: no route from host \"dev-d\" to \"site-1\"", "hier-no-route");
  fails("--set 'topology={\"kind\":\"hierarchical\"}'", "has no host with role site-aggregator", "hier-derive");
  fails(
      "--set training.mode=async --set "
      "'topology={\"kind\":\"hierarchical\",\"sites\":{\"site-1\":[\"dev-c\"],\"site-2\":[\"dev-d\"]}}'",
      "topology.kind: hierarchical needs synchronous rounds", "hier-async");
}

TEST_CASE("hierarchical: cloud_aggregation async applies each site's delta on arrival") {
  // One site: its whole delta applied on arrival is the synchronous cloud's average of one delta.
  const std::string one = "--set 'topology={\"kind\":\"hierarchical\",\"sites\":{\"edge\":[\"dev-a\",\"dev-b\"]}";
  const fs::path sync = run_hier("hier-cloud-sync", one + "}'");
  const fs::path async = run_hier("hier-cloud-async", one + ",\"cloud_aggregation\":\"async\"}'");
  CHECK(slurp(async / "metrics.csv") == slurp(sync / "metrics.csv"));
  CHECK(slurp(async / "devices.csv") == slurp(sync / "devices.csv"));
  // Three sites at their own pace: every applied delta is a round, with its staleness.
  const fs::path three = run_hier(
      "hier-cloud-async-three",
      "--set training.compute=timing-only --set 'devices=[\"dev-a\",\"dev-b\",\"dev-c\",\"dev-d\"]' --set "
      "stop.rounds=12 "
      "--set 'topology={\"kind\":\"hierarchical\",\"cloud_aggregation\":\"async\",\"sites\":{\"edge\":[\"dev-a\","
      "\"dev-b\"],\"site-1\":[\"dev-c\"],\"site-2\":[\"dev-d\"]}}'");
  const auto summary = read_json(three / "summary.json");
  CHECK(summary["rounds"] == 12);
  int64_t applied = 0;
  for (const auto& site : summary["sites"]) {
    applied += site["deltas_aggregated"].get<int64_t>();
    CHECK(site["deltas_aggregated"].get<int64_t>() >= 1);
  }
  CHECK(applied == 12);
  const auto staleness = read_csv(three / "staleness.csv");
  CHECK(staleness.size() == 12);
  CHECK(count(staleness.front(), "staleness") == 0);  // the first delta: nothing applied since its model
  CHECK(read_csv(three / "rounds.csv").empty());      // no cloud rounds
}

TEST_CASE("hierarchical: validate shows the sites, each hop's compression and the selection, warns of a dense site "
          "uplink, and summarises a fleet by class") {
  // scenarios/fl/hierarchical.json: 120 devices of a generated factory in 3 sites.
  const Result r = run_cli("validate " + (kSource / "scenarios/fl/hierarchical.json").string() +
                               " --set training.compute=timing-only --set stop.target_accuracy=null --set compression.kind=topk "
                               "--set compression.ratio=0.1 "
                               "--set 'training.selection={\"kind\":\"random\",\"per_round\":5}'",
                           "hier-validate");
  INFO(r.out, r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("\ntopology  hierarchical, 3 sites: assembly-agg (50 devices), paint-agg (32 devices), "
                   "warehouse-agg (38 devices); 1 site round per cloud round, cloud aggregation sync\n") !=
        std::string::npos);
  CHECK(r.out.find("\nhops      device -> site topk (ratio 0.1") != std::string::npos);
  CHECK(r.out.find("; site -> device dense model; site -> cloud dense fp32 delta; cloud -> site dense model "
                   "(always)\n") != std::string::npos);
  CHECK(r.out.find("\nselection random, 5 devices per round per site (of 120)\n") != std::string::npos);
  CHECK(r.err.find("edgetrain: warning: topology.site_compression: null (dense fp32 deltas) while compression.kind "
                   "topk compresses only the device -> site hop") != std::string::npos);
  // The first 20 devices one per line, then the fleet by class (60 cameras, 36 IPCs, 24 Jetsons).
  size_t device_lines = 0;
  for (const std::string& line : lines_of(r.out)) device_lines += line.rfind("  device ", 0) == 0 ? 1 : 0;
  CHECK(device_lines == 20);
  CHECK(r.out.find("\n  ... and 100 more devices; all 120 by class:\n  class camera: 60 devices, ") != std::string::npos);
  CHECK(r.out.find("\n  class ipc: 36 devices, ") != std::string::npos);
  CHECK(r.out.find("\n  class jetson: 24 devices, ") != std::string::npos);
  // With the site uplink compressed too, no warning.
  const Result both = run_cli("validate " + (kSource / "scenarios/fl/hierarchical.json").string() +
                                  " --set training.compute=timing-only --set stop.target_accuracy=null --set compression.kind=topk "
                                  "--set 'topology.site_compression={\"kind\":\"topk\"}'",
                              "hier-validate-both");
  CHECK(both.status == 0);
  CHECK(both.err.find("topology.site_compression") == std::string::npos);
  CHECK(both.out.find("; site -> cloud topk (ratio 0.01") != std::string::npos);
}
