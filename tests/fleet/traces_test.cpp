// A device class that follows traces (classes.NAME.capacity_trace, availability_trace): each device
// draws a trace device of its own seeded stream; its speed and access links follow the capacity row,
// its on intervals become a host property the run plays (tests/sim/traces_test.cpp).
#include <doctest/doctest.h>

#include <fstream>
#include <set>

#include "fleet/draw.hpp"
#include "fleet/xml.hpp"
#include "helpers.hpp"
#include "learn/catalogue.hpp"

using namespace edgetrain::fleet;
namespace fs = std::filesystem;

namespace {

fs::path trace_dir() {
  const fs::path dir = fs::temp_directory_path() / "edgetrain-fleet-traces";
  fs::create_directories(dir);
  std::ofstream(dir / "cap.csv") << "device,compute_ms_per_sample,bandwidth_kbps\nslow,100,2000\nfast,10,8000\n";
  std::ofstream(dir / "on.csv") << "a,0,10\na,20,30\nb,5,50\n";
  return dir;
}

// two_site_fleet() whose "pi" class follows the traces.
nlohmann::json traced_fleet() {
  nlohmann::json d = test::two_site_fleet();
  d["classes"]["pi"].erase("speed");
  d["classes"]["pi"]["capacity_trace"] = "cap.csv";
  d["classes"]["pi"]["availability_trace"] = "on.csv";
  return d;
}

}  // namespace

TEST_CASE("fleet traces: a class's devices take their speed, links and on intervals from its traces") {
  const fs::path dir = trace_dir();
  const FleetSpec spec = parse_fleet(traced_fleet(), "", dir);
  const double reference = edgetrain::learn::find_model("mobilenet_v2")->step_flops_per_sample();
  // ms 100 -> reference / 0.3 s; ms 10 -> reference / 0.03 s; both rounded to whole Mf.
  const std::set<double> speeds = {1e6 * std::round(reference / 0.3 / 1e6), 1e6 * std::round(reference / 0.03 / 1e6)};
  const Fleet fleet = draw_fleet(spec, 3);
  std::set<std::string> on_seen;
  int traced = 0;
  for (const Device& d : fleet.devices) {
    if (spec.classes[d.class_index].name != "pi") {
      CHECK(d.bandwidth_bps == 0);
      CHECK(d.availability_on_s.empty());
      continue;
    }
    ++traced;
    CHECK(speeds.count(d.speed_flops) == 1);
    CHECK(d.bandwidth_bps == (d.speed_flops == *speeds.rbegin() ? 8e6 : 2e6));
    CHECK((d.availability_on_s == "0:10,20:30" || d.availability_on_s == "5:50"));
    on_seen.insert(d.availability_on_s);
  }
  CHECK(traced == 6);
  // The platform: the device's own links at the row's bandwidth, its intervals as a host property.
  const std::string xml = platform_xml(fleet);
  const Device& first = *std::find_if(fleet.devices.begin(), fleet.devices.end(),
                                      [&](const Device& d) { return spec.classes[d.class_index].name == "pi"; });
  CHECK(xml.find("<prop id=\"availability_on_s\" value=\"" + first.availability_on_s + "\"/>") != std::string::npos);
  const std::string bw = first.bandwidth_bps == 8e6 ? "8Mbps" : "2Mbps";
  CHECK(xml.find("<link id=\"" + first.host + "-up\" bandwidth=\"" + bw + "\"") != std::string::npos);
  CHECK(xml.find("<link id=\"" + first.host + "-down\" bandwidth=\"" + bw + "\"") != std::string::npos);
  // Seeded: the same seed draws the same rows.
  CHECK(platform_xml(draw_fleet(spec, 3)) == xml);
}

TEST_CASE("fleet traces: refusals name the class's key") {
  const fs::path dir = trace_dir();
  nlohmann::json d = traced_fleet();
  d["classes"]["pi"]["speed"] = "1Gf";
  auto error = [&](const nlohmann::json& desc) {
    try {
      parse_fleet(desc, "", dir);
    } catch (const FleetError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error(d) ==
        "classes.pi: give \"speed\" or \"capacity_trace\", not both (the trace gives each device its speed)");
  d = traced_fleet();
  d["classes"]["pi"]["capacity_trace"] = "missing.csv";
  CHECK(error(d).rfind("classes.pi.capacity_trace: ", 0) == 0);
  std::ofstream(dir / "bad.csv") << "a,0,10\na,5,20\n";
  d = traced_fleet();
  d["classes"]["pi"]["availability_trace"] = "bad.csv";
  CHECK(error(d) == "classes.pi.availability_trace: " + (dir / "bad.csv").string() +
                        ":2: device \"a\": interval [5, 20) overlaps [0, 10) of line 1");
  d = traced_fleet();
  d["classes"]["pi"]["trace_reference_model"] = "resnet9";
  CHECK(error(d).rfind("classes.pi.trace_reference_model: not a catalogue model: \"resnet9\"", 0) == 0);
  d["classes"]["pi"]["properties"]["availability_on_s"] = "0:1";
  d["classes"]["pi"].erase("trace_reference_model");
  CHECK(error(d).find("availability_on_s") != std::string::npos);
}
