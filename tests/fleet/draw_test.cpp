// draw_fleet and exact_split: exact counts per class, site and link class; seeded identity;
// drawn values inside their distributions.
#include "fleet/draw.hpp"

#include <doctest/doctest.h>

#include <map>
#include <numeric>

#include "fleet/parse.hpp"
#include "fleet/split.hpp"
#include "fleet/xml.hpp"
#include "helpers.hpp"

using namespace edgetrain::fleet;

TEST_CASE("exact_split: parts are floors or one more, sum to the total, ties to the earlier share") {
  CHECK(exact_split(10, {0.5, 0.5}) == std::vector<int64_t>{5, 5});
  CHECK(exact_split(7, {1, 1, 1}) == std::vector<int64_t>{3, 2, 2});
  CHECK(exact_split(10, {0.6, 0.4}) == std::vector<int64_t>{6, 4});
  CHECK(exact_split(1, {0.2, 0.8}) == std::vector<int64_t>{0, 1});
  CHECK(exact_split(5, {0, 1, 0}) == std::vector<int64_t>{0, 5, 0});
  const std::vector<int64_t> parts = exact_split(100003, {0.3, 0.3, 0.4, 1e-9});
  CHECK(std::accumulate(parts.begin(), parts.end(), int64_t{0}) == 100003);
  CHECK(parts[0] == 30001);
  CHECK(parts[3] == 0);
}

TEST_CASE("counts per class, per site and per link class are exact") {
  nlohmann::json d = test::two_site_fleet();
  d["devices"] = 1000;
  d["sites"]["home"]["count"] = 3;  // home-0, home-1, home-2
  const FleetSpec spec = parse_fleet(d);
  const Fleet fleet = draw_fleet(spec, 7);
  REQUIRE(fleet.devices.size() == 1000);
  REQUIRE(fleet.sites.size() == 4);
  CHECK(fleet.sites[0].name == "hall");
  CHECK(fleet.sites[3].name == "home-2");
  std::map<std::string, int64_t> per_class, per_link;
  std::map<std::pair<std::string, std::string>, int64_t> class_site, class_link;
  for (const Device& dev : fleet.devices) {
    const std::string& c = spec.classes[dev.class_index].name;
    const std::string& l = spec.link_classes[dev.link_index].name;
    ++per_class[c];
    ++per_link[l];
    ++class_site[{c, fleet.sites[dev.site_index].name}];
    ++class_link[{c, l}];
  }
  CHECK(per_class["pi"] == 600);
  CHECK(per_class["phone"] == 400);
  // pi: no site shares, so its 600 spread over the 4 sites alike; phone: all in hall.
  CHECK(class_site[{"pi", "hall"}] == 150);
  CHECK(class_site[{"pi", "home-1"}] == 150);
  CHECK(class_site[{"phone", "hall"}] == 400);
  CHECK(class_site.count({"phone", "home-0"}) == 0);
  CHECK(fleet.sites[0].devices == 550);
  // pi: half dsl, half fibre; phone: all fibre.
  CHECK(class_link[{"pi", "dsl"}] == 300);
  CHECK(class_link[{"pi", "fibre"}] == 300);
  CHECK(class_link[{"phone", "fibre"}] == 400);
  CHECK(per_link["fibre"] == 700);
  // Hosts of a class are numbered 0 ... count-1 across the sites, site after site.
  CHECK(fleet.devices[0].host == "phone-0");
  CHECK(fleet.devices[400].host == "pi-0");
  CHECK(fleet.devices.back().host == "pi-599");
}

TEST_CASE("same description and seed give the same bytes, another seed other draws") {
  const FleetSpec spec = parse_fleet(test::two_site_fleet());
  CHECK(platform_xml(spec, 3) == platform_xml(spec, 3));
  CHECK(device_list_csv(spec, 3) == device_list_csv(spec, 3));
  CHECK(platform_xml(spec, 3) != platform_xml(spec, 4));
  CHECK(device_list_csv(spec, 3) != device_list_csv(spec, 4));
  // A parse of the same text is the same spec: the bytes do not depend on the object.
  CHECK(platform_xml(parse_fleet(test::two_site_fleet()), 3) == platform_xml(spec, 3));
}

TEST_CASE("a device's values come from its own stream: more devices leave the others' draws alone") {
  nlohmann::json d = test::two_site_fleet();
  d["sites"].erase("home");
  d["classes"]["pi"]["links"] = "dsl";
  const FleetSpec small = parse_fleet(d);
  d["devices"] = 20;
  const FleetSpec large = parse_fleet(d);
  const Fleet a = draw_fleet(small, 9), b = draw_fleet(large, 9);
  std::map<std::string, std::pair<double, int64_t>> drawn;
  for (const Device& dev : b.devices) drawn[dev.host] = {dev.speed_flops, dev.cores};
  for (const Device& dev : a.devices) {
    CAPTURE(dev.host);
    CHECK(drawn.at(dev.host) == std::pair<double, int64_t>{dev.speed_flops, dev.cores});
  }
}

TEST_CASE("drawn values stay inside their distributions") {
  nlohmann::json d = test::two_site_fleet();
  d["devices"] = 2000;
  d["classes"]["pi"]["cores"] = {{"dist", "uniform"}, {"min", 2}, {"max", 4}};
  const FleetSpec spec = parse_fleet(d);
  const Fleet fleet = draw_fleet(spec, 1);
  std::map<int64_t, int64_t> pi_cores, phone_cores;
  double pi_sum = 0;
  int64_t pi_count = 0;
  for (const Device& dev : fleet.devices) {
    if (spec.classes[dev.class_index].name == "pi") {
      CHECK(dev.speed_flops >= 1e9);
      CHECK(dev.speed_flops <= 2e9);
      CHECK(dev.speed_flops == std::round(dev.speed_flops));
      ++pi_cores[dev.cores];
      pi_sum += dev.speed_flops;
      ++pi_count;
    } else {
      CHECK(dev.speed_flops >= 1e9);  // normal(3Gf, 1Gf) clipped to [1Gf, 5Gf]
      CHECK(dev.speed_flops <= 5e9);
      ++phone_cores[dev.cores];
    }
  }
  // Uniform whole numbers: 2, 3 and 4 each about a third of 1200 (binomial sd about 16).
  REQUIRE(pi_cores.size() == 3);
  for (const auto& [cores, n] : pi_cores) CHECK(std::abs(n - 400) < 100);
  CHECK(pi_sum / pi_count == doctest::Approx(1.5e9).epsilon(0.02));
  // List [4, 8], equal weights.
  REQUIRE(phone_cores.size() == 2);
  CHECK(std::abs(phone_cores[4] - 400) < 100);
}
