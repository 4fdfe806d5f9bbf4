// The fleets shipped under platforms/fleets/: each description parses, and the committed
// platforms and device lists of the small ones equal a fresh generation (no drift: regenerate
// them with the commands in docs/how-to/fleets.md after changing a description or the
// generator).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "fleet/draw.hpp"
#include "fleet/parse.hpp"
#include "fleet/xml.hpp"
#include "helpers.hpp"

using namespace edgetrain::fleet;

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("the committed platforms of the small shipped fleets equal a fresh generation") {
  for (const char* name : {"home-iot", "phones", "factory"}) {
    CAPTURE(name);
    const std::filesystem::path dir = test::kSourceDir / "platforms/fleets";
    const FleetSpec spec = load_fleet_file(dir / (std::string(name) + ".json"));
    CHECK(spec.name == name);
    const Fleet fleet = draw_fleet(spec, spec.seed);
    CHECK(slurp(dir / (std::string(name) + ".xml")) == platform_xml(fleet));
    CHECK(slurp(dir / (std::string(name) + ".devices.csv")) == device_list_csv(fleet));
  }
}

TEST_CASE("the planning fleets parse to 10,000 and 100,000 devices") {
  const std::filesystem::path dir = test::kSourceDir / "platforms/fleets";
  CHECK(load_fleet_file(dir / "plan-10k.json").devices == 10000);
  const FleetSpec large = load_fleet_file(dir / "plan-100k.json");
  CHECK(large.devices == 100000);
  CHECK(large.sites.at(0).count == 100);
}
