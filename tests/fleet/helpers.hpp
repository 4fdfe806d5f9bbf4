// Small fleet descriptions for the fleet tests, and the way to parse one and see its error.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "fleet/parse.hpp"

namespace test {

inline const std::filesystem::path kSourceDir = EDGETRAIN_SOURCE_DIR;

// Two sites (one with an aggregator), two device classes, two link classes.
inline nlohmann::json two_site_fleet() {
  return nlohmann::json::parse(R"({
    "name": "two-sites",
    "devices": 10,
    "classes": {
      "pi": {"about": "Raspberry Pi 4", "share": 0.6, "speed": {"dist": "uniform", "min": "1Gf", "max": "2Gf"},
             "cores": 4, "links": {"dsl": 0.5, "fibre": 0.5}, "properties": {"wattage_per_state": "2.7:6.4"}},
      "phone": {"share": 0.4, "speed": {"dist": "normal", "mean": "3Gf", "stddev": "1Gf", "min": "1Gf", "max": "5Gf"},
                "cores": {"dist": "list", "values": [4, 8]}, "links": "fibre", "sites": {"hall": 1}}
    },
    "link_classes": {
      "dsl": {"up": "1Mbps", "down": "16Mbps", "latency": "20ms"},
      "fibre": {"up": "100Mbps", "down": "300Mbps", "latency": "2ms"}
    },
    "sites": {
      "hall": {"uplink": {"up": "50Mbps", "down": "100Mbps", "latency": "5ms"}, "lan": {"bandwidth": "1Gbps", "latency": "0.1ms"},
               "aggregator": {"speed": "20Gf", "cores": 4}},
      "home": {}
    },
    "wan": {"bandwidth": "10Gbps", "latency": "20ms"},
    "cloud": {"speed": "100Gf", "cores": 16, "ingress": {"bandwidth": "10Gbps", "latency": "1ms"}}
  })");
}

// The message parse_fleet throws for `description`, or "" when it parses.
inline std::string parse_error(const nlohmann::json& description) {
  try {
    edgetrain::fleet::parse_fleet(description);
  } catch (const edgetrain::fleet::FleetError& e) {
    return e.what();
  }
  return "";
}

}  // namespace test
