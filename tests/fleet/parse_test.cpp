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
