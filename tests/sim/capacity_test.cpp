// Bandwidth sharing against the capacity bound, on tests/sim/data/two-sites-shared.{json,xml}
// (issue 18's reproduction): a cloud and two sites, each behind a 20 Mbit/s, 10 ms link shared by
// two devices, access links 100 Mbit/s, 3 ms, SPLITDUPLEX, routes of equal latency. Times computed
// by hand from the CM02 model (docs/explanation/time-model.md).
#include <doctest/doctest.h>

#include <string>

#include "cli_helpers.hpp"

using namespace test;

namespace {

constexpr double kMobileNetParams = 3504872;
constexpr double kModelBytes = 4 * kMobileNetParams + 64;  // dense fp32 + header: 14,019,552 bytes
constexpr double kSiteBps = 20e6, kRouteLatencyS = 0.003 + 0.010 + 0.003;
// Two equal-latency transfers share the site link equally (10 Mbit/s each; the cloud's 100 Mbit/s
// carries 40): each takes the route's latency + its size over half the site link.
constexpr double kSharedTransferS = kRouteLatencyS + kModelBytes * 8 / (kSiteBps / 2);  // 11.2316416 s

std::map<std::string, std::map<std::string, std::string>> by(const std::vector<std::map<std::string, std::string>>& rows,
                                                             const std::string& key) {
  std::map<std::string, std::map<std::string, std::string>> out;
  for (const auto& r : rows) out[r.at(key)] = r;
  return out;
}

}  // namespace

TEST_CASE("capacity: each site's two downloads and uploads finish at the capacity-bound time (Full solver)") {
  const fs::path out = run_ok("two-sites-shared.json", "", "capacity-two-sites");
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["network_solver"] == "Full");
  CHECK(summary["capacity"]["violations"].empty());
  CHECK(summary["warnings"].empty());
  CHECK(summary["capacity"]["peak_utilization"].get<double>() == doctest::Approx(1.0).epsilon(1e-9));
  const auto links = by(read_csv(out / "links.csv"), "link");
  for (const char* site : {"site-a_DOWN", "site-b_DOWN", "site-a_UP", "site-b_UP"}) {
    CAPTURE(site);
    // Both transfers of a direction start together and end together: the link is busy for one.
    CHECK(count(links.at(site), "bytes") == 2 * kModelBytes);
    CHECK(num(links.at(site), "busy_s") == doctest::Approx(kSharedTransferS).epsilon(1e-12));
  }
  // Every device: its download and its upload, each as long as the shared transfer.
  for (const auto& [name, d] : by(read_csv(out / "devices.csv"), "device")) {
    CAPTURE(name);
    CHECK(num(d, "comm_s") == doctest::Approx(2 * kSharedTransferS).epsilon(1e-12));
  }
}

TEST_CASE("capacity: a forced lazy solver is warned about, and the link it overfills is reported") {
  const Result r = run_cli("run " + (kData / "two-sites-shared.json").string() + " --quiet --out " +
                               fresh_dir("capacity-lazy").string() + " --cfg=network/optim:Lazy",
                           "capacity-lazy");
  REQUIRE(r.status == 0);
  CHECK(r.err.find("warning: --cfg=network/optim:Lazy: SimGrid 3.32's selective update") != std::string::npos);
  const auto summary = read_json(fs::temp_directory_path() / "edgetrain-test-capacity-lazy" / "summary.json");
  CHECK(summary["network_solver"] == "Lazy");
  // SimGrid 3.32's lazy solver gives one site 40 Mbit/s through its 20 Mbit/s link (which one
  // depends on the device order): the check names it, its bandwidth and the rate it carried.
  const auto& violations = summary["capacity"]["violations"];
  REQUIRE(!violations.empty());
  const auto& peak = violations[0];
  CHECK(peak["check"] == "peak");
  CHECK(peak["link"].get<std::string>().find("_DOWN") != std::string::npos);
  CHECK(peak["bandwidth_bps"].get<double>() == kSiteBps);
  CHECK(peak["rate_bps"].get<double>() == doctest::Approx(2 * kSiteBps));
  // One warning for the solver, then one per violation (also on stderr).
  CHECK(summary["warnings"].size() == 1 + violations.size());
  CHECK(r.err.find("above its bandwidth of 20 Mbit/s") != std::string::npos);
}

TEST_CASE("capacity: concurrent loopback transfers each get the loopback's bandwidth, as SimGrid models it") {
  // Gossip peers hand their updates to their own device over the loopback (a FATPIPE link: SimGrid
  // bounds each flow by its bandwidth, not their sum): no violation although transfers overlap.
  const fs::path out = run_ok("gossip4.json", "--set training.compute=timing-only", "capacity-loopback");
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["capacity"]["violations"].empty());
  const auto links = by(read_csv(out / "links.csv"), "link");
  REQUIRE(links.count("__loopback__") == 1);
  CHECK(count(links.at("__loopback__"), "bytes") > 0);
}
