// Tests of the faults section: device availability (off intervals, random failures), link
// traces and outages, the interval lists, and the rules across keys (entry forms, device
// names, the round timeout of synchronous modes, downlink compression).
#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

// minimal_doc() (mode sync, devices pi-1 and pi-2) with this faults section and a round
// timeout, which synchronous modes need once there are faults.
json with_faults(json faults) {
  json doc = minimal_doc();
  doc["faults"] = std::move(faults);
  doc["training"]["round_timeout_s"] = 30;
  return doc;
}

// The error of a scenario whose faults section is `faults`.
std::string faults_error(const TempDir& dir, json faults) { return parse_error(dir, with_faults(std::move(faults))); }

// The error of a scenario with one device entry `entry`.
std::string device_entry_error(const TempDir& dir, json entry) {
  return faults_error(dir, {{"devices", json::array({std::move(entry)})}});
}

}  // namespace

TEST_CASE("faults: absent, null or empty") {
  TempDir dir;
  for (const json& doc : {minimal_doc(), with_faults(nullptr)}) {
    const Scenario s = parse_in(dir, doc);
    CHECK(!s.faults);
    CHECK(s.resolved["faults"].is_null());
  }
  // An empty section: no entries, the default retry delay.
  Scenario s = parse_in(dir, with_faults(json::object()));
  REQUIRE(s.faults);
  CHECK(s.faults->devices.empty());
  CHECK(s.faults->links.empty());
  CHECK(s.faults->retry_s == 1.0);
  CHECK(s.resolved["faults"] == json::parse(R"({"devices": null, "links": null, "retry_s": 1.0})"));
  // Empty lists are allowed, and need no round timeout.
  json doc = minimal_doc();
  doc["faults"] = {{"devices", json::array()}, {"links", json::array()}, {"retry_s", "250ms"}};
  s = parse_in(dir, doc);
  REQUIRE(s.faults);
  CHECK(s.faults->devices.empty());
  CHECK(s.faults->retry_s == doctest::Approx(0.25));
  CHECK(s.resolved["faults"]["devices"] == json::array());
  CHECK(faults_error(dir, {{"retry_s", 0}}) == "faults.retry_s: must be > 0 s, got 0");
}

TEST_CASE("faults: device entries load into typed fields") {
  TempDir dir;
  const Scenario s = parse_in(dir, with_faults(json::parse(R"({"devices": [
      {"device": "pi-1", "off_s": [[60, 120], ["5min", "330s"]]},
      {"mtbf_s": "10min", "mttr_s": 60}]})")));
  REQUIRE(s.faults);
  REQUIRE(s.faults->devices.size() == 2);
  const DeviceFaultSpec& a = s.faults->devices[0];
  CHECK(a.device == "pi-1");
  REQUIRE(a.off.size() == 2);
  CHECK(a.off[0].off_s == 60.0);
  CHECK(a.off[0].on_s == 120.0);
  CHECK(a.off[1].off_s == 300.0);
  CHECK(a.off[1].on_s == 330.0);
  CHECK(!a.mtbf_s);
  CHECK(!a.mttr_s);
  const DeviceFaultSpec& b = s.faults->devices[1];
  CHECK(b.device == "*");  // the default: every device not named in another entry
  CHECK(b.off.empty());
  CHECK(b.mtbf_s == 600.0);
  CHECK(b.mttr_s == 60.0);
  CHECK(s.training.round_timeout_s == 30.0);
  // Resolved: intervals as numbers of seconds, every key spelled out.
  CHECK(s.resolved["faults"]["devices"] == json::parse(R"([
      {"device": "pi-1", "off_s": [[60.0, 120.0], [300.0, 330.0]], "mtbf_s": null, "mttr_s": null},
      {"device": "*", "off_s": null, "mtbf_s": 600.0, "mttr_s": 60.0}])"));
  // An empty interval list is a (never off) entry of its own.
  const Scenario e = parse_in(dir, with_faults({{"devices", {{{"device", "pi-2"}, {"off_s", json::array()}}}}}));
  CHECK(e.faults->devices[0].off.empty());
  CHECK(e.resolved["faults"]["devices"][0]["off_s"] == json::array());
}

TEST_CASE("faults: link entries, traces resolve against the scenario file") {
  TempDir dir;
  dir.write("traces/wan.csv", "time_s,bandwidth_bps\n0,1e7\n60,2e6\n");
  const auto file = dir.write("sub/scen.json", R"({"platform": "../platform.xml", "server": "srv",
      "devices": ["pi-1", "pi-2"], "dataset": {"name": "synthetic"}, "stop": {"rounds": 1},
      "training": {"round_timeout_s": "20s"},
      "faults": {"links": [{"link": "wan_UP", "trace": "../traces/wan.csv"},
                           {"link": "pi-1_link", "off_s": [[10, 20]]},
                           {"link": "wan_DOWN", "trace": "../traces/wan.csv", "off_s": [[0, 5], [50, 55.5]]}],
                 "retry_s": 2}})");
  const Scenario s = load_scenario(file);
  REQUIRE(s.faults);
  CHECK(s.faults->devices.empty());
  CHECK(s.faults->retry_s == 2.0);
  REQUIRE(s.faults->links.size() == 3);
  const LinkFaultSpec& up = s.faults->links[0];
  CHECK(up.link == "wan_UP");
  CHECK(up.trace == dir / "traces/wan.csv");
  CHECK(up.trace.is_absolute());
  CHECK(up.off.empty());
  const LinkFaultSpec& access = s.faults->links[1];
  CHECK(access.trace.empty());  // constant bandwidth
  REQUIRE(access.off.size() == 1);
  CHECK(access.off[0].off_s == 10.0);
  CHECK(access.off[0].on_s == 20.0);
  const LinkFaultSpec& down = s.faults->links[2];
  CHECK(down.trace == dir / "traces/wan.csv");
  REQUIRE(down.off.size() == 2);
  CHECK(down.off[1].on_s == 55.5);
  CHECK(s.resolved["faults"]["links"][0] ==
        json{{"link", "wan_UP"}, {"trace", (dir / "traces/wan.csv").string()}, {"off_s", nullptr}});

  CHECK(faults_error(dir, {{"links", {{{"link", "wan_UP"}, {"trace", "missing.csv"}}}}}) ==
        "faults.links[0].trace: file not found: " + (dir / "missing.csv").string());
  CHECK(faults_error(dir, {{"links", {{{"trace", "traces/wan.csv"}}}}}) ==
        "faults.links[0].link: required key is missing");
  CHECK(faults_error(dir, {{"links", {{{"link", ""}, {"trace", "traces/wan.csv"}}}}}) ==
        "faults.links[0].link: must not be empty");
}

TEST_CASE("faults: interval list errors name the interval") {
  TempDir dir;
  auto err = [&](json off) { return device_entry_error(dir, {{"device", "pi-1"}, {"off_s", std::move(off)}}); };
  CHECK(err(json::parse("[[60, 120], [30, 20]]")) == "faults.devices[0].off_s[1]: on_s must be > off_s, got [30, 20]");
  CHECK(err(json::parse("[[10, 10]]")) == "faults.devices[0].off_s[0]: on_s must be > off_s, got [10, 10]");
  CHECK(err(json::parse("[[-5, 10]]")) == "faults.devices[0].off_s[0]: off_s must be >= 0, got [-5, 10]");
  CHECK(err(json::parse("[[\"-1s\", 10]]")) == "faults.devices[0].off_s[0]: off_s must be >= 0, got [-1, 10]");
  CHECK(err(json::parse("[[60, 120], [10, 20]]")) ==
        "faults.devices[0].off_s[1]: [10, 20] starts before faults.devices[0].off_s[0] [60, 120]; list the "
        "intervals in time order");
  CHECK(err(json::parse("[[60, 120], [50, 70]]")) ==
        "faults.devices[0].off_s[1]: [50, 70] starts before faults.devices[0].off_s[0] [60, 120]; list the "
        "intervals in time order");
  CHECK(err(json::parse("[[60, 120], [100, 150]]")) ==
        "faults.devices[0].off_s[1]: [100, 150] overlaps faults.devices[0].off_s[0] [60, 120]");
  CHECK(err(json::parse("[[60, 120], [60, 90]]")) ==
        "faults.devices[0].off_s[1]: [60, 90] overlaps faults.devices[0].off_s[0] [60, 120]");
  CHECK(err(json::parse("[[0, 1], [60, 120], [120, 150]]")) ==
        "faults.devices[0].off_s[2]: [120, 150] starts where faults.devices[0].off_s[1] [60, 120] ends; merge them "
        "into one");
  // Wrong shapes.
  CHECK(err(60) ==
        "faults.devices[0].off_s: expected a list of [off_s, on_s] intervals in seconds, e.g. [[60, 120], [300, "
        "330]], got 60");
  CHECK(err(json::parse("[60, 120]")) ==
        "faults.devices[0].off_s[0]: expected [off_s, on_s] (two times in seconds), got 60");
  CHECK(err(json::parse("[[60]]")) ==
        "faults.devices[0].off_s[0]: expected [off_s, on_s] (two times in seconds), got [60]");
  CHECK(err(json::parse("[[60, 120, 180]]")) ==
        "faults.devices[0].off_s[0]: expected [off_s, on_s] (two times in seconds), got [60,120,180]");
  CHECK(err(json::parse(R"([{"off": 60, "on": 120}])")) ==
        "faults.devices[0].off_s[0]: expected [off_s, on_s] (two times in seconds), got {\"off\":60,\"on\":120}");
  CHECK(err(json::parse("[[true, 120]]")) ==
        "faults.devices[0].off_s[0][0]: expected a duration (number of seconds or string like \"500ms\"), got true");
  CHECK(err(json::parse("[[10, \"later\"]]")) ==
        "faults.devices[0].off_s[0][1]: cannot read \"later\" as a duration (use a number of seconds or a unit: us, "
        "ms, s, min, h)");
  // Link outages are checked the same way, under their own path.
  CHECK(faults_error(dir, {{"links", {{{"link", "l1"}, {"off_s", json::parse("[[5, 9], [8, 12]]")}}}}}) ==
        "faults.links[0].off_s[1]: [8, 12] overlaps faults.links[0].off_s[0] [5, 9]");
}

TEST_CASE("faults: a device entry gives off_s, or mtbf_s and mttr_s") {
  TempDir dir;
  CHECK(device_entry_error(dir, {{"device", "pi-1"}}) ==
        "faults.devices[0]: give off_s (fixed off intervals), or mtbf_s and mttr_s (random failures)");
  CHECK(device_entry_error(dir, json::object()) ==
        "faults.devices[0]: give off_s (fixed off intervals), or mtbf_s and mttr_s (random failures)");
  CHECK(device_entry_error(dir, {{"off_s", {{1, 2}}}, {"mtbf_s", 60}, {"mttr_s", 5}}) ==
        "faults.devices[0]: give either off_s (fixed off intervals) or mtbf_s and mttr_s (random failures), not both");
  CHECK(device_entry_error(dir, {{"off_s", {{1, 2}}}, {"mttr_s", 5}}) ==
        "faults.devices[0]: give either off_s (fixed off intervals) or mtbf_s and mttr_s (random failures), not both");
  CHECK(device_entry_error(dir, {{"mtbf_s", 60}}) ==
        "faults.devices[0].mttr_s: required with mtbf_s (random failures need both)");
  CHECK(device_entry_error(dir, {{"mttr_s", 60}, {"mtbf_s", nullptr}}) ==
        "faults.devices[0].mtbf_s: required with mttr_s (random failures need both)");
  CHECK(device_entry_error(dir, {{"mtbf_s", 0}, {"mttr_s", 5}}) == "faults.devices[0].mtbf_s: must be > 0 s, got 0");
  CHECK(device_entry_error(dir, {{"mtbf_s", 60}, {"mttr_s", "-5s"}}) ==
        "faults.devices[0].mttr_s: must be > 0 s, got \"-5s\"");
}

TEST_CASE("faults: device names") {
  TempDir dir;
  auto entries_error = [&](const char* entries) { return faults_error(dir, {{"devices", json::parse(entries)}}); };
  CHECK(entries_error(R"([{"device": "pi-11", "mtbf_s": 60, "mttr_s": 5}])") ==
        "faults.devices[0].device: no device named \"pi-11\" (did you mean \"pi-1\"?)");
  CHECK(entries_error(R"([{"device": "camera", "off_s": [[1, 2]]}])") ==
        "faults.devices[0].device: no device named \"camera\" (devices: pi-1, pi-2; or \"*\" for every other "
        "device)");
  CHECK(entries_error(R"([{"device": "pi-1", "off_s": [[1, 2]]}, {"device": "pi-2", "off_s": [[1, 2]]},
                          {"device": "pi-1", "mtbf_s": 60, "mttr_s": 5}])") ==
        "faults.devices[2].device: device \"pi-1\" already has an entry (faults.devices[0])");
  CHECK(entries_error(R"([{"off_s": [[1, 2]]}, {"device": "*", "mtbf_s": 60, "mttr_s": 5}])") ==
        "faults.devices[1].device: a second \"*\" entry (faults.devices[0] already covers every device not named)");
  CHECK(entries_error(R"([{"device": "", "off_s": [[1, 2]]}])") == "faults.devices[0].device: must not be empty");
  // Names, not hosts: a device named "b" on host pi-2.
  json doc = with_faults({{"devices", json::parse(R"([{"device": "b", "off_s": [[1, 2]]}])")}});
  doc["devices"] = json::parse(R"(["pi-1", {"host": "pi-2", "name": "b"}])");
  CHECK(parse_in(dir, doc).faults->devices[0].device == "b");
  doc["faults"]["devices"][0]["device"] = "pi-2";
  CHECK(parse_error(dir, doc) == "faults.devices[0].device: no device named \"pi-2\" (did you mean \"pi-1\"?)");
  // A long fleet is not listed in full.
  doc = with_faults({{"devices", json::parse(R"([{"device": "camera", "off_s": [[1, 2]]}])")}});
  doc["devices"] = json::array();
  for (int i = 0; i < 12; ++i) doc["devices"].push_back("host-" + std::to_string(i));
  CHECK(parse_error(dir, doc) ==
        "faults.devices[0].device: no device named \"camera\" (devices: host-0, host-1, host-2, host-3, host-4, "
        "host-5, host-6, host-7, ...; or \"*\" for every other device)");
}

TEST_CASE("faults: a link entry gives trace or off_s, once per link") {
  TempDir dir;
  dir.write("bw.csv", "0,1e6\n");
  CHECK(faults_error(dir, {{"links", {{{"link", "l1"}}}}}) ==
        "faults.links[0]: give trace (bandwidth over time), off_s (outages), or both");
  CHECK(faults_error(dir, {{"links", {{{"link", "l1"}, {"trace", nullptr}, {"off_s", nullptr}}}}}) ==
        "faults.links[0]: give trace (bandwidth over time), off_s (outages), or both");
  CHECK(faults_error(dir, {{"links", json::parse(R"([{"link": "l1", "trace": "bw.csv"},
                                                      {"link": "l1", "off_s": [[1, 2]]}])")}}) ==
        "faults.links[1].link: link \"l1\" already has an entry (faults.links[0])");
}

TEST_CASE("faults: synchronous modes need a round timeout") {
  TempDir dir;
  const json device_faults = {{"devices", {{{"mtbf_s", 600}, {"mttr_s", 60}}}}};
  auto doc_for = [&](json training, json faults) {
    json doc = minimal_doc();
    doc["stream"] = {{"rate", "S10"}};  // scadles needs streams
    doc["training"] = std::move(training);
    doc["faults"] = std::move(faults);
    return doc;
  };
  const std::string tail =
      " when faults has device or link entries (without it a round waits for every device, however long one is off "
      "or cut off)";
  CHECK(parse_error(dir, doc_for({{"mode", "sync"}}, device_faults)) ==
        "training.round_timeout_s: required in mode sync" + tail);
  CHECK(parse_error(dir, doc_for({{"mode", "scadles"}}, device_faults)) ==
        "training.round_timeout_s: required in mode scadles" + tail);
  CHECK(parse_error(dir, doc_for({{"mode", "local-sgd"}}, device_faults)) ==
        "training.round_timeout_s: required in mode local-sgd with aggregation sync" + tail);
  // Link faults alone need it too; a null timeout is no timeout.
  CHECK(
      parse_error(dir, doc_for({{"round_timeout_s", nullptr}}, {{"links", {{{"link", "l1"}, {"off_s", {{1, 2}}}}}}})) ==
      "training.round_timeout_s: required in mode sync" + tail);
  // Pushes applied on arrival do not wait for anyone.
  CHECK(!parse_in(dir, doc_for({{"mode", "async"}}, device_faults)).training.round_timeout_s);
  CHECK(parse_in(dir, doc_for({{"mode", "local-sgd"}, {"aggregation", "async"}}, device_faults)).faults);
  // With a timeout, or without entries, synchronous modes are fine.
  CHECK(
      parse_in(dir, doc_for({{"mode", "sync"}, {"round_timeout_s", "45s"}}, device_faults)).training.round_timeout_s ==
      45.0);
  CHECK(parse_in(dir, doc_for({{"mode", "scadles"}}, {{"devices", json::array()}, {"retry_s", 3}})).faults);
  CHECK(parse_in(dir, doc_for({{"mode", "sync"}}, nullptr)).training.mode == "sync");
}

TEST_CASE("faults: device faults are not supported with downlink compression") {
  TempDir dir;
  json doc = with_faults({{"devices", {{{"mtbf_s", 600}, {"mttr_s", 60}}}}});
  doc["compression"] = {{"kind", "topk"}, {"downlink", {{"kind", "fp16"}}}};
  CHECK(parse_error(dir, doc) ==
        "faults.devices: not supported with compression.downlink: a device that restarts has lost its model copy, "
        "which the downlink deltas update (set compression.downlink to null)");
  doc["compression"]["downlink"] = nullptr;  // uplink compression alone is fine
  CHECK(parse_in(dir, doc).compression.uplink.kind == "topk");
  // Link faults alone are fine with a downlink.
  dir.write("bw.csv", "0,1e6\n");
  doc = with_faults({{"links", {{{"link", "l1"}, {"trace", "bw.csv"}}}}});
  doc["compression"] = {{"downlink", {{"kind", "fp16"}}}};
  CHECK(parse_in(dir, doc).compression.downlink);
}

TEST_CASE("faults: unknown keys and entry shapes") {
  TempDir dir;
  CHECK(device_entry_error(dir, "pi-1") ==
        "faults.devices[0]: expected an object {\"device\": ..., \"off_s\": [[off, on], ...]} or {\"device\": ..., "
        "\"mtbf_s\": ..., \"mttr_s\": ...}, got \"pi-1\"");
  CHECK(device_entry_error(dir, {{"device", "pi-1"}, {"of_s", {{1, 2}}}}) ==
        "faults.devices[0]: unknown key \"of_s\" (did you mean \"off_s\"?)");
  CHECK(faults_error(dir, {{"links", {{{"link", "l1"}, {"bandwidth", 5}}}}}) ==
        "faults.links[0]: unknown key \"bandwidth\" (expected one of: link, trace, off_s)");
  CHECK(faults_error(dir, {{"device", json::array()}}) == "faults.device: unknown key (did you mean \"devices\"?)");
  CHECK(faults_error(dir, {{"devices", json::object()}}) ==
        "faults.devices: expected a list (each entry an object {\"device\": ..., \"off_s\": [[off, on], ...]} or "
        "{\"device\": ..., \"mtbf_s\": ..., \"mttr_s\": ...}), got {}");
  CHECK(faults_error(dir, 5) == "faults: expected an object (with keys devices, links, retry_s) or null, got 5");
  json doc = minimal_doc();
  doc["retry_s"] = 1;  // right key, wrong section
  CHECK(parse_error(dir, doc) == "retry_s: unknown key (did you mean \"faults.retry_s\"?)");
}

TEST_CASE("faults: --set overrides") {
  TempDir dir;
  // Setting a key below the absent faults section creates it, and the entry.
  const Scenario s = parse_in(
      dir, minimal_doc(),
      {"faults.devices.0.device=pi-2", "faults.devices.0.off_s=[[10, 20], [30, 40]]", "faults.devices.1.mtbf_s=10min",
       "faults.devices.1.mttr_s=30s", "training.round_timeout_s=5s", "faults.retry_s=500ms"});
  REQUIRE(s.faults);
  REQUIRE(s.faults->devices.size() == 2);
  CHECK(s.faults->devices[0].device == "pi-2");
  REQUIRE(s.faults->devices[0].off.size() == 2);
  CHECK(s.faults->devices[0].off[1].off_s == 30.0);
  CHECK(s.faults->devices[1].device == "*");
  CHECK(s.faults->devices[1].mtbf_s == 600.0);
  CHECK(s.faults->devices[1].mttr_s == 30.0);
  CHECK(s.faults->retry_s == doctest::Approx(0.5));
  CHECK(parse_error(dir, minimal_doc(), {"faults.devices.0.off_s.0=[1, 2]"}) ==
        "--set faults.devices.0.off_s.0=[1, 2]: set faults.devices.0.off_s as a whole, e.g. "
        "faults.devices.0.off_s=[[60, 120], [300, 330]]");
  CHECK(parse_error(dir, minimal_doc(), {"faults.devices.0.off_s.on=2"}) ==
        "faults.devices[0].off_s.on: unknown key (faults.devices[0].off_s is a list of intervals: set it as a whole, "
        "e.g. faults.devices.0.off_s=[[60, 120]])");
  CHECK(parse_error(dir, minimal_doc(), {"faults.devices.0.devise=pi-1"}) ==
        "faults.devices[0]: unknown key \"devise\" (did you mean \"device\"?)");
}

TEST_CASE("faults: describe summarises the faults") {
  TempDir dir;
  dir.write("bw.csv", "0,1e6\n");
  const Scenario s = parse_in(dir, with_faults(json::parse(R"({"devices": [
      {"device": "pi-1", "off_s": [[60, 120], [300, 330]]}, {"mtbf_s": 600, "mttr_s": 60}],
      "links": [{"link": "wan_UP", "trace": "bw.csv", "off_s": [[5, 6]]}]})")));
  const std::string d = describe(s);
  CHECK(d.find("faults    device pi-1 off 2 intervals; other devices fail (mtbf 600 s, mttr 60 s); link wan_UP "
               "bandwidth from " +
               (dir / "bw.csv").string() + ", down 1 interval; retry after 1 s\n") != std::string::npos);
  CHECK(d.find("training  sync, batch 32, lr 0.05, momentum 0, weight decay 0, round timeout 30 s\n") !=
        std::string::npos);
  CHECK(describe(parse_in(dir, minimal_doc())).find("faults") == std::string::npos);
}

TEST_CASE("faults: data injection is refused with a round timeout") {
  TempDir dir;
  json doc = minimal_doc();
  doc["stream"] = {{"rate", "S10"}};
  doc["training"] = {{"mode", "scadles"}, {"injection", {{"alpha", 0.5}, {"beta", 0.25}}}, {"round_timeout_s", 10}};
  CHECK(parse_error(dir, doc) ==
        "training.injection: not supported with training.round_timeout_s (a round that closes without some devices "
        "would lose the samples handed to them); set one of them to null");
  doc["training"]["round_timeout_s"] = nullptr;
  CHECK(parse_in(dir, doc).training.injection);
}
