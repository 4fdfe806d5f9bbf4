// parse_fleet: counts resolved from shares, defaults, and bad descriptions named by JSON path.
#include "fleet/parse.hpp"

#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace edgetrain::fleet;

TEST_CASE("a description with shares resolves exact class counts") {
  const FleetSpec spec = parse_fleet(test::two_site_fleet());
  CHECK(spec.devices == 10);
  REQUIRE(spec.classes.size() == 2);
  CHECK(spec.classes[0].name == "phone");  // name order
  CHECK(spec.classes[0].count == 4);
  CHECK(spec.classes[1].count == 6);
  CHECK(spec.classes[1].speed_flops.kind == Distribution::Kind::Uniform);
  CHECK(spec.classes[1].speed_flops.max == 2e9);
  CHECK(spec.link_classes[0].up_bps == 1e6);
  CHECK(spec.link_classes[0].latency_s == doctest::Approx(0.02));
  CHECK(spec.sites.size() == 2);
  CHECK(spec.sites[0].aggregator->link.up_bps == 1e9);  // the default aggregator port
  CHECK(spec.cloud.host == "cloud");
  CHECK(spec.cloud.ingress->bandwidth_bps == 1e10);
}

TEST_CASE("counts add up with shares of what the counted classes leave") {
  nlohmann::json d = test::two_site_fleet();
  d["devices"] = 25;
  d["classes"]["pi"].erase("share");
  d["classes"]["pi"]["count"] = 7;
  d["classes"]["phone"]["share"] = 1;
  const FleetSpec spec = parse_fleet(d);
  CHECK(spec.classes[0].count == 18);  // phone: 25 - 7
  CHECK(spec.classes[1].count == 7);
  d.erase("devices");
  d["classes"]["phone"].erase("share");
  d["classes"]["phone"]["count"] = 3;
  CHECK(parse_fleet(d).devices == 10);  // counts only: the total is their sum
}

TEST_CASE("defaults: one site \"edge\", a cloud host \"cloud\", one core") {
  nlohmann::json d = test::two_site_fleet();
  d.erase("sites");
  d.erase("cloud");
  d["classes"]["phone"].erase("sites");
  d["classes"]["phone"].erase("cores");
  const FleetSpec spec = parse_fleet(d);
  REQUIRE(spec.sites.size() == 1);
  CHECK(spec.sites[0].name == "edge");
  CHECK_FALSE(spec.sites[0].uplink);
  CHECK(spec.cloud.host == "cloud");
  CHECK(spec.cloud.spec.speed_flops == 100e9);
  CHECK_FALSE(spec.cloud.ingress);
  CHECK(spec.classes[0].cores.kind == Distribution::Kind::Constant);
  CHECK(spec.classes[0].cores.value == 1);
}

TEST_CASE("bad descriptions: one message naming the JSON path") {
  using nlohmann::json;
  // The message when the value at `pointer` is replaced by `value` (or removed: `drop`).
  auto with = [](const std::string& pointer, const json& value) {
    json d = test::two_site_fleet();
    if (value.is_discarded()) {
      d.at(json::json_pointer(pointer.substr(0, pointer.rfind('/')))).erase(pointer.substr(pointer.rfind('/') + 1));
    } else {
      d[json::json_pointer(pointer)] = value;
    }
    return test::parse_error(d);
  };
  const json drop = json::value_t::discarded;
  CHECK(with("/clases", json::object()) == "clases: unknown key \"clases\" (did you mean \"classes\"?)");
  CHECK(with("/links", json::object()).find("links: unknown key \"links\"") == 0);
  CHECK(with("/links", json::object()).find("link_classes") != std::string::npos);
  CHECK(with("/classes/pi/sped", 1) == "classes.pi.sped: unknown key \"sped\" (did you mean \"speed\"?)");
  CHECK(with("/classes/pi/share", -0.5) == "classes.pi.share: a share must be > 0 and <= 1, got -0.5");
  CHECK(with("/classes/pi/share", 0.5) ==
        "classes (the classes' \"share\" values): the shares must sum to 1, they sum to 0.9");
  CHECK(with("/classes/pi/count", -3) == "classes.pi: give exactly one of \"count\" and \"share\"");
  {
    json d = test::two_site_fleet();
    d["classes"]["pi"].erase("share");
    d["classes"]["pi"]["count"] = -3;
    CHECK(test::parse_error(d) == "classes.pi.count: must be from 0 to 100000000, got -3");
  }
  CHECK(with("/classes/pi/links/dsl", 0.6) == "classes.pi.links: the shares must sum to 1, they sum to 1.1");
  CHECK(with("/classes/phone/links", "fiber") ==
        "classes.phone.links: unknown link class \"fiber\" (did you mean \"fibre\"?) (known: dsl, fibre)");
  CHECK(with("/classes/phone/sites", json{{"hal", 1}}) ==
        "classes.phone.sites.hal: unknown site \"hal\" (did you mean \"hall\"?) (known: hall, home)");
  CHECK(with("/classes/pi/speed", "fast").find("classes.pi.speed: ") == 0);  // the unit parser's message
  CHECK(with("/classes/pi/speed", 0) == "classes.pi.speed: must be > 0, got 0");
  CHECK(with("/classes/pi/speed/max", "0.5Gf") == "classes.pi.speed.max: must be >= min, got \"0.5Gf\"");
  CHECK(with("/classes/pi/speed/dist", "gauss").find("classes.pi.speed.dist: unknown distribution \"gauss\"") == 0);
  CHECK(with("/classes/pi/speed/mean", "1Gf") ==
        "classes.pi.speed.mean: not a key of a uniform distribution (it takes min, max)");
  CHECK(with("/classes/pi/cores", 0) == "classes.pi.cores: must be from 1 to 4096, got 0");
  CHECK(with("/classes/pi/cores", 2.5) == "classes.pi.cores: expected a whole number, got 2.5");
  CHECK(with("/classes/pi/properties/role", "x") ==
        "classes.pi.properties.role: edgetrain sets this property itself (class, site, link_class, role)");
  CHECK(with("/link_classes/dsl/up", "-1Mbps") == "link_classes.dsl.up: must be > 0, got \"-1Mbps\"");
  CHECK(with("/link_classes/dsl/latency", drop) == "link_classes.dsl.latency: required");
  CHECK(with("/link_classes/dsl/latency", 2e9) == "link_classes.dsl.latency: must be at most 1e+09 s, got 2000000000.0");
  CHECK(with("/wan", drop) == "wan: required");
  CHECK(with("/devices", 11).empty());  // shares split any total
  CHECK(with("/devices", drop) == "devices: required: classes \"phone\" and others give a share of it");
  CHECK(with("/sites/home/count", 0) == "sites.home.count: must be from 1 to 2000, got 0");
  CHECK(with("/sites/pi-3", json::object()) ==
        "the description: the zone of site \"pi-3\" would be named \"pi-3\", like a host of class \"pi\": rename the "
        "class or the site");
  CHECK(with("/classes/bad name", json::object()).find("classes.bad name: a name must be") == 0);
  CHECK(with("/about", 3) == "about: expected a string (a comment), got 3");
  CHECK(with("/seed", -1) == "seed: must be a non-negative integer, got -1");
}

TEST_CASE("messages start with the description's path inside its document") {
  nlohmann::json d = test::two_site_fleet();
  d["classes"]["pi"]["share"] = 2;
  try {
    parse_fleet(d, "platform");
    FAIL("no error");
  } catch (const FleetError& e) {
    CHECK(std::string(e.what()) == "platform.classes.pi.share: a share must be > 0 and <= 1, got 2");
  }
}

TEST_CASE("bounds: speeds and bandwidths have the platform's bounds, list weights a finite sum") {
  using nlohmann::json;
  auto with = [](const std::string& pointer, const json& value) {
    json d = test::two_site_fleet();
    d[json::json_pointer(pointer)] = value;
    return test::parse_error(d);
  };
  // "1f" is refused, not rounded up to the 1 Mf step of drawn speeds.
  CHECK(with("/classes/pi/speed", "1f") == "classes.pi.speed: must be at least 1e+06f, got \"1f\"");
  CHECK(with("/classes/pi/speed", json::parse(R"({"dist": "uniform", "min": "1f", "max": "2Gf"})")) ==
        "classes.pi.speed.min: must be at least 1e+06f, got \"1f\"");
  CHECK(with("/classes/pi/speed", "1Mf").empty());
  CHECK(with("/cloud/speed", "1e300").find("cloud.speed: must be at most 1e+15f") == 0);
  CHECK(with("/link_classes/dsl/up", "1e-300bps") == "link_classes.dsl.up: must be at least 1bps, got \"1e-300bps\"");
  CHECK(with("/wan/bandwidth", "1e300").find("wan.bandwidth: must be at most 1e+15bps") == 0);
  CHECK(with("/classes/pi/speed", json::parse(R"({"dist": "list", "values": ["1Gf", "2Gf"], "weights": [1e308, 1e308]})")) ==
        "classes.pi.speed.weights: the weights sum to more than a double holds: scale them down");
  CHECK(with("/classes/pi/properties/wattage_per_state", "1e308:1e308").find("watts from 0 to 1e6") != std::string::npos);
}
