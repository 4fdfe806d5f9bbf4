// platform_xml: what edgetrain's platform checker (SimGrid 3.32's rules) reads back from a
// generated fleet: every host, its zone and properties; one star zone per site; two routes per
// site, none per device. And the device list beside it.
#include "fleet/xml.hpp"

#include <doctest/doctest.h>

#include <map>
#include <sstream>

#include "fleet/draw.hpp"
#include "fleet/parse.hpp"
#include "helpers.hpp"
#include "platform/check.hpp"

using namespace edgetrain;
using namespace edgetrain::fleet;

namespace {

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a generated platform passes the checker, with every host's zone and properties") {
  nlohmann::json d = test::two_site_fleet();
  d["classes"]["pi"]["properties"]["note"] = "a \"quoted\" <value> & more";
  const FleetSpec spec = parse_fleet(d);
  const Fleet fleet = draw_fleet(spec, 1);
  const std::string xml = platform_xml(fleet);
  const platform::PlatformInfo info = platform::check_platform_text(xml, "two-sites.xml");
  CHECK(info.hosts.size() == 10 + 1 + 1);  // devices, hall's aggregator, the cloud
  const platform::HostPlace& cloud = info.hosts.at("cloud");
  CHECK(cloud.properties.at("role") == "cloud");
  REQUIRE(cloud.zones.size() == 2);
  CHECK(cloud.zones[1].id == "cloud-zone");
  const platform::HostPlace& agg = info.hosts.at("hall-agg");
  CHECK(agg.properties.at("role") == "site-aggregator");
  CHECK(agg.properties.at("site") == "hall");
  for (const Device& dev : fleet.devices) {
    CAPTURE(dev.host);
    const platform::HostPlace& h = info.hosts.at(dev.host);
    REQUIRE(h.zones.size() == 2);
    CHECK(h.zones[0].id == "fleet");
    CHECK(h.zones[0].routing == platform::Routing::Full);
    CHECK(h.zones[1].id == fleet.sites[dev.site_index].name);
    CHECK(h.zones[1].routing == platform::Routing::Cluster);
    CHECK(h.properties.at("role") == "device");
    CHECK(h.properties.at("class") == spec.classes[dev.class_index].name);
    CHECK(h.properties.at("site") == fleet.sites[dev.site_index].name);
    CHECK(h.properties.at("link_class") == spec.link_classes[dev.link_index].name);
    if (spec.classes[dev.class_index].name == "pi") {
      CHECK(h.properties.at("wattage_per_state") == "2.7:6.4");
      CHECK(h.properties.at("note") == "a \"quoted\" <value> & more");  // escaped in the XML, read back whole
    }
  }
  // Routes: site -> cloud and back for each site, nothing per device.
  CHECK(occurrences(xml, "<zoneRoute ") == 2 * fleet.sites.size());
  CHECK(occurrences(xml, "<route ") == 0);
  CHECK(occurrences(xml, "<host_link ") == 11);
  // The hall's route crosses its uplink; home has none.
  CHECK(xml.find("<link_ctn id=\"hall-uplink-up\"/><link_ctn id=\"wan\" direction=\"UP\"/><link_ctn "
                 "id=\"cloud-ingress\" direction=\"UP\"/>") != std::string::npos);
  CHECK(xml.find("home-uplink") == std::string::npos);
  CHECK(xml.find("<backbone id=\"hall-lan\" bandwidth=\"1Gbps\" latency=\"0.0001s\"/>") != std::string::npos);
}

TEST_CASE("the device list gives what was drawn, in platform order") {
  const FleetSpec spec = parse_fleet(test::two_site_fleet());
  const Fleet fleet = draw_fleet(spec, 1);
  std::istringstream csv(device_list_csv(fleet));
  std::string line;
  std::getline(csv, line);
  CHECK(line == "host,class,site,link_class,speed_flops,cores,up_bps,down_bps,latency_s");
  size_t i = 0;
  while (std::getline(csv, line)) {
    REQUIRE(i < fleet.devices.size());
    const Device& dev = fleet.devices[i++];
    const LinkClass& l = spec.link_classes[dev.link_index];
    std::ostringstream expected;
    expected << dev.host << "," << spec.classes[dev.class_index].name << "," << fleet.sites[dev.site_index].name << ","
             << l.name << "," << static_cast<int64_t>(dev.speed_flops) << "," << dev.cores << ","
             << static_cast<int64_t>(l.up_bps) << "," << static_cast<int64_t>(l.down_bps) << ",";
    CHECK(line.rfind(expected.str(), 0) == 0);
  }
  CHECK(i == fleet.devices.size());
}

TEST_CASE("a 10,000-device fleet generates and passes the checker") {
  const FleetSpec spec = load_fleet_file(test::kSourceDir / "platforms/fleets/plan-10k.json");
  const Fleet fleet = draw_fleet(spec, spec.seed);
  CHECK(fleet.devices.size() == 10000);
  CHECK(fleet.sites.size() == 20);
  const platform::PlatformInfo info = platform::check_platform_text(platform_xml(fleet), "plan-10k.xml");
  CHECK(info.hosts.size() == 10000 + 20 + 1);
  std::map<std::string, int64_t> per_class, per_site;
  for (const auto& [host, place] : info.hosts) {
    if (place.properties.at("role") != "device") continue;
    ++per_class[place.properties.at("class")];
    ++per_site[place.properties.at("site")];
  }
  CHECK(per_class == std::map<std::string, int64_t>{{"nuc", 2000}, {"phone", 5000}, {"pi4", 3000}});
  REQUIRE(per_site.size() == 20);
  for (const auto& [site, n] : per_site) CHECK(n == 500);
}

TEST_CASE("energy: a link class's wattage_range goes onto each direction's link, bad wattages name their path") {
  nlohmann::json d = test::two_site_fleet();
  d["link_classes"]["dsl"]["wattage_range"] = {{"up", "0:4.8"}, {"down", "0:2.8"}};
  const edgetrain::fleet::FleetSpec spec = edgetrain::fleet::parse_fleet(d);
  CHECK(spec.link_classes[0].up_wattage_range == "0:4.8");
  CHECK(spec.link_classes[0].down_wattage_range == "0:2.8");
  CHECK(spec.link_classes[1].up_wattage_range.empty());
  const std::string xml = edgetrain::fleet::platform_xml(edgetrain::fleet::draw_fleet(spec, 1));
  const edgetrain::platform::PlatformInfo info = edgetrain::platform::check_platform_text(xml, "fleet.xml");
  CHECK(info.link_energy);
  CHECK(info.host_energy);
  CHECK(xml.find("latency=\"0.02s\"><prop id=\"wattage_range\" value=\"0:4.8\"/></link>") != std::string::npos);

  d["link_classes"]["dsl"]["wattage_range"]["up"] = "4.8";
  CHECK(test::parse_error(d) ==
        "link_classes.dsl.wattage_range.up: wattage_range must be \"idle:busy\" (watts), got \"4.8\"");
  d = test::two_site_fleet();
  d["classes"]["pi"]["properties"]["wattage_per_state"] = "2.7:6.4:5";
  CHECK(test::parse_error(d).rfind("classes.pi.properties: wattage_per_state must be", 0) == 0);
}
