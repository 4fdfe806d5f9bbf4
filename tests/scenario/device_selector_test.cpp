// Devices named without listing hosts: a selector object expands, in platform file order, to one
// device per matching host (globs on names, the class/site/role properties the fleet generator
// writes), never the server or an aggregator; a selector matching nothing is refused naming the
// key; the resolved scenario keeps the selector as written, with the number matched.
#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

std::string host(const std::string& id, const std::string& cls, const std::string& site, const std::string& role) {
  return "    <host id=\"" + id + "\" speed=\"1Gf\"><prop id=\"class\" value=\"" + cls +
         "\"/><prop id=\"site\" value=\"" + site + "\"/><prop id=\"role\" value=\"" + role + "\"/></host>\n";
}

// Hosts in an order that is not alphabetical, so file order shows.
const std::string kPlatform = std::string(R"(<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
)") + host("cloud", "server", "cloud", "cloud") +
                              host("site-2-agg", "server", "site-2", "site-aggregator") +
                              host("pi-2", "pi4", "site-2", "device") + host("pi-1", "pi4", "site-1", "device") +
                              host("jet-1", "jetson", "site-1", "device") +
                              host("phone-1", "phone", "site-2", "device") +
                              R"(  </zone>
</platform>
)";

struct Fixture {
  TempDir dir;
  Fixture() { dir.write("platform.xml", kPlatform); }
  json doc(const json& devices) const {
    json d = minimal_doc();
    d["server"] = "cloud";
    d["devices"] = devices;
    return d;
  }
  std::vector<std::string> hosts(const json& devices, const std::vector<std::string>& sets = {}) const {
    std::vector<std::string> out;
    for (const auto& d : parse_in(dir, doc(devices), sets).devices) {
      CHECK(d.name == d.host);
      out.push_back(d.host);
    }
    return out;
  }
  std::string error(const json& devices, const std::vector<std::string>& sets = {}) const {
    return parse_error(dir, doc(devices), sets);
  }
};

using Hosts = std::vector<std::string>;

}  // namespace

TEST_CASE("device selector: globs, class, site and all expand to the right hosts in file order") {
  const Fixture f;
  CHECK(f.hosts({{"hosts", "*"}}) == Hosts{"pi-2", "pi-1", "jet-1", "phone-1"});  // no server, no aggregator
  CHECK(f.hosts({{"hosts", "pi-*"}}) == Hosts{"pi-2", "pi-1"});
  CHECK(f.hosts({{"hosts", {"jet-?", "phone-*"}}}) == Hosts{"jet-1", "phone-1"});
  CHECK(f.hosts({{"class", "pi4"}}) == Hosts{"pi-2", "pi-1"});
  CHECK(f.hosts({{"site", "site-1"}}) == Hosts{"pi-1", "jet-1"});
  CHECK(f.hosts({{"site", "site-2"}, {"class", "pi4"}}) == Hosts{"pi-2"});  // AND
  CHECK(f.hosts({{"hosts", "*"}, {"exclude", "p*"}}) == Hosts{"jet-1"});
  CHECK(f.hosts({{"role", "site-aggregator"}}) == Hosts{"site-2-agg"});  // named explicitly
  // From --set, on a scenario that lists its devices.
  CHECK(f.hosts(json::array({"pi-1"}), {"devices={\"class\": \"jetson\"}"}) == Hosts{"jet-1"});
  CHECK(f.hosts({{"hosts", "*"}}, {"devices.site=site-2"}) == Hosts{"pi-2", "phone-1"});
}

TEST_CASE("device selector: the resolved scenario keeps the selector and the number matched") {
  const Fixture f;
  const Scenario s = parse_in(f.dir, f.doc({{"class", "pi4"}}));
  CHECK(s.resolved.at("devices") == json{{"class", "pi4"}, {"matched", 2}});
  CHECK(s.devices.size() == 2);
  CHECK(describe(s).find("devices   2 (selector {\"class\":\"pi4\",\"matched\":2}): pi-2, pi-1\n") !=
        std::string::npos);
  // Reading the resolved form back gives the same devices; a wrong count is refused.
  CHECK(f.hosts({{"class", "pi4"}, {"matched", 2}}) == Hosts{"pi-2", "pi-1"});
  CHECK(f.error({{"class", "pi4"}, {"matched", 3}}) ==
        "devices.matched: the selector matches 2 hosts, not 3 (remove matched, or fix the selector or the platform)");
  // Faults name selected devices as usual.
  json doc = f.doc({{"hosts", "pi-*"}});
  doc["training"] = {{"round_timeout_s", 10}};
  doc["faults"] = {{"devices", {{{"device", "pi-1"}, {"off_s", {{1, 2}}}}}}};
  CHECK(parse_in(f.dir, doc).faults->devices.at(0).device == "pi-1");
  doc["faults"]["devices"][0]["device"] = "pi-3";
  CHECK(parse_error(f.dir, doc).rfind("faults.devices[0].device: no device named \"pi-3\" (did you mean", 0) == 0);
}

TEST_CASE("device selector: a selector matching nothing, or malformed, is refused naming the key") {
  const Fixture f;
  CHECK(f.error({{"class", "pi5"}}) ==
        "devices: selector {\"class\":\"pi5\"} matches no device host of platform platform.xml (the server and "
        "aggregators are never selected); class \"pi5\" matches no host (did you mean \"pi4\"?)");
  CHECK(f.error({{"site", "mars"}}) ==
        "devices: selector {\"site\":\"mars\"} matches no device host of platform platform.xml (the server and "
        "aggregators are never selected); site \"mars\" matches no host (site values: cloud, site-1, site-2)");
  CHECK(f.error({{"class", "jetson"}, {"site", "site-2"}}).find("but no host matches them all") != std::string::npos);
  CHECK(f.error({{"hosts", "cloud"}}).find("hosts \"cloud\" matches no host") != std::string::npos);
  CHECK(f.error({{"clas", "pi4"}}) == "devices.clas: unknown selector key (did you mean \"class\"?)");
  CHECK(f.error({{"exclude", "pi-*"}}) ==
        "devices: a selector needs at least one of hosts, class, site and role (e.g. {\"hosts\": \"*\"})");
  CHECK(f.error({{"hosts", 3}}) ==
        "devices.hosts: expected a glob (a string such as \"pi-*\") or a list of globs, got 3");
  CHECK(f.error({{"hosts", "*"}, {"stream", {{"rate", 10}}}}).rfind("devices.stream: unknown selector key", 0) == 0);
  CHECK(f.error("pi-1") ==
        "devices: expected a list (each entry a host name or an object {\"host\": ..., \"name\": ...}) or a "
        "selector object such as {\"hosts\": \"pi-*\"}, got \"pi-1\"");
}
