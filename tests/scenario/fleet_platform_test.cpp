// A scenario whose platform is a fleet description: the platform is generated when the scenario
// is loaded (seeded by the scenario unless the description sets a seed), keys of the description
// can be set under `platform` before generation, and device selectors read the generated hosts.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "platform/check.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

// Two sites; pi4 speeds are drawn, so the seed shows in the platform text.
const char* kFleet = R"({
  // comments are allowed, as in scenario files
  "name": "tiny",
  "classes": {
    "pi4": {"count": 3, "speed": {"dist": "uniform", "min": "2Gf", "max": "4Gf"}, "cores": 4, "links": "dsl"},
    "jetson": {"count": 2, "speed": "20Gf", "links": "dsl", "sites": {"north": 1}}
  },
  "link_classes": {"dsl": {"up": "10Mbps", "down": "50Mbps", "latency": "15ms"}},
  "sites": {"north": {"uplink": {"up": "100Mbps", "down": "100Mbps", "latency": "1ms"}},
            "south": {"uplink": {"up": "100Mbps", "down": "100Mbps", "latency": "1ms"}}},
  "wan": {"bandwidth": "1Gbps", "latency": "20ms"},
  "cloud": {"host": "cloud", "speed": "50Gf", "cores": 8}
})";

struct Fixture {
  TempDir dir;
  Fixture() { dir.write("tiny.json", kFleet); }
  json doc(const json& devices = {{"hosts", "*"}}) const {
    json d = minimal_doc();
    d["platform"] = "tiny.json";
    d["server"] = "cloud";
    d["devices"] = devices;
    return d;
  }
};

size_t count_class(const Scenario& s, const std::string& cls) {
  size_t n = 0;
  for (const auto& d : s.devices) n += s.platform_info->hosts.at(d.host).properties.at("class") == cls;
  return n;
}

}  // namespace

TEST_CASE("fleet platform: generated on load, devices selected by class, a class count set before generation") {
  const Fixture f;
  const Scenario s = parse_in(f.dir, f.doc());
  REQUIRE(s.platform_info);
  CHECK(s.devices.size() == 5);
  CHECK(count_class(s, "pi4") == 3);
  CHECK(s.platform == f.dir / "tiny.json");
  CHECK(s.platform_xml.find("<!DOCTYPE platform") != std::string::npos);  // the generated platform
  CHECK(s.platform_overrides.empty());
  CHECK(s.resolved.at("platform") == (f.dir / "tiny.json").string());

  const Scenario more = parse_in(f.dir, f.doc({{"class", "pi4"}}), {"platform.classes.pi4.count=7"});
  CHECK(more.devices.size() == 7);
  CHECK(more.resolved.at("devices") == json{{"class", "pi4"}, {"matched", 7}});
  REQUIRE(more.platform_overrides.size() == 1);
  CHECK(more.platform_overrides[0].key == "platform.classes.pi4.count");
  CHECK(more.platform_overrides[0].value == 7);
  CHECK(more.platform_overrides[0].before == 3);
  CHECK(more.resolved.at("platform") ==
        json{{"file", (f.dir / "tiny.json").string()}, {"classes", {{"pi4", {{"count", 7}}}}}});
  // Selected by site: jetsons all sit in the north.
  const Scenario south = parse_in(f.dir, f.doc({{"site", "south"}}));
  CHECK(count_class(south, "jetson") == 0);
  // Link what-ifs apply to the generated platform too.
  const Scenario wan = parse_in(f.dir, f.doc(), {"platform.links.wan.bandwidth=10Gbps"});
  REQUIRE(wan.platform_overrides.size() == 1);
  // The value before is the generated text's, as the generator writes it.
  const std::string before = wan.platform_overrides[0].before.get<std::string>();
  CHECK(s.platform_xml.find("<link id=\"wan\" bandwidth=\"" + before + "\"") != std::string::npos);
  CHECK(wan.platform_xml.find("<link id=\"wan\" bandwidth=\"1e+10bps\"") != std::string::npos);
}

TEST_CASE("fleet platform: the scenario's seed draws the fleet unless the description sets its own") {
  const Fixture f;
  const std::string seed1 = parse_in(f.dir, f.doc()).platform_xml;
  CHECK(parse_in(f.dir, f.doc()).platform_xml == seed1);  // same seed, same bytes
  CHECK(parse_in(f.dir, f.doc(), {}, 2).platform_xml != seed1);
  // A description with its own seed keeps its fleet whatever the scenario's seed.
  CHECK(parse_in(f.dir, f.doc(), {"platform.seed=9"}, 1).platform_xml ==
        parse_in(f.dir, f.doc(), {"platform.seed=9"}, 2).platform_xml);
}

TEST_CASE("fleet platform: bad fleet keys are one line naming the scenario key") {
  const Fixture f;
  CHECK(parse_error(f.dir, f.doc(), {"platform.classes.pi4.count=-1"}).rfind("platform.classes.pi4.count: ", 0) == 0);
  CHECK(parse_error(f.dir, f.doc(), {"platform.clases.pi4.count=2"}).rfind("platform.clases: unknown key", 0) == 0);
  CHECK(parse_error(f.dir, f.doc({{"class", "pi5"}})).find("class \"pi5\" matches no host (did you mean \"pi4\"?)") !=
        std::string::npos);
  f.dir.write("broken.json", "{\"classes\": {}}");
  json doc = f.doc();
  doc["platform"] = "broken.json";
  CHECK(parse_error(f.dir, doc).rfind((f.dir / "broken.json").string(), 0) == 0);  // the file's own mistake
}

TEST_CASE("fleet platform: a written device list works too, and validate's summary names the fleet") {
  const Fixture f;
  const Scenario s = parse_in(f.dir, f.doc(json::array({"pi4-0"})));
  REQUIRE(s.platform_info);  // a generated platform is always checked on load
  CHECK(s.devices.size() == 1);
  CHECK(describe(s).find("tiny.json (fleet description: ") != std::string::npos);
}
