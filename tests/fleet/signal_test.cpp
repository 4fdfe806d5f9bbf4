// `edgetrain fleet` on the largest description allowed (10^6 devices, seconds of drawing and
// writing): SIGINT ends it at once with exit 130 and writes nothing.
#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "../sim/cli_helpers.hpp"
#include "../sim/process_helpers.hpp"

namespace fs = std::filesystem;

TEST_CASE("fleet: SIGINT while a 10^6-device fleet is drawn ends it at once, exit 130, nothing written") {
  const fs::path dir = test::fresh_dir("fleet-signal");
  std::ofstream(dir / "big.json") << R"({"name": "big", "devices": 1000000,
    "classes": {"pi": {"share": 1, "speed": {"dist": "uniform", "min": "1Gf", "max": "2Gf"}, "links": {"lan": 1}}},
    "link_classes": {"lan": {"up": "10Mbps", "down": "50Mbps", "latency": "10ms"}},
    "sites": {"s": {"count": 100, "uplink": {"up": "1Gbps", "down": "1Gbps", "latency": "2ms"}}},
    "wan": {"bandwidth": "100Gbps", "latency": "10ms"}})";
  test::Child c = test::start_cli({"fleet", (dir / "big.json").string(), "-o", (dir / "big.xml").string()}, "fleet-signal");
  REQUIRE(test::wait_until([&] { return test::catches(c.pid, SIGINT) || !test::running(c); }, 60));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ::kill(c.pid, SIGINT);
  const auto sent = std::chrono::steady_clock::now();
  const test::Ended e = test::wait_cli(c, 60);
  // A bound, not a measure: about 0.3 s alone, where the whole fleet takes about 7 s (CI runs tests side by side).
  CHECK(test::seconds_since(sent) < 5);
  CHECK(e.result.status == 130);
  CHECK(e.result.err.find("edgetrain fleet: interrupted while ") == 0);
  CHECK(e.result.err.find("(nothing was written)\n") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "big.xml"));
}
