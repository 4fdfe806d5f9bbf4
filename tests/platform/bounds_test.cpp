// The platform file's quantities have the what-if keys' bounds (platform/bounds.hpp): a host of
// 1e-300f, a link of 1e-300 bit/s or 1e300 s, a wattage of 1e308 W would make a run that never
// ends or energies that overflow. Each class is refused with FILE:LINE, on every element that
// carries it; the values at the bounds pass.
#include <doctest/doctest.h>

#include <string>

#include "platform/bounds.hpp"
#include "platform/check.hpp"

using namespace edgetrain::platform;

namespace {

std::string error_of(const std::string& body) {
  const std::string xml =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform "
      "version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n" +
      body + "</zone>\n</platform>\n";
  try {
    check_platform_text(xml, "p.xml");
  } catch (const PlatformFileError& e) {
    return e.what();
  }
  return "";
}

std::string link(const std::string& bw, const std::string& lat) {
  return "<host id=\"a\" speed=\"1Gf\"/>\n<link id=\"l\" bandwidth=\"" + bw + "\" latency=\"" + lat + "\"/>\n";
}

}  // namespace

TEST_CASE("platform bounds: speeds, bandwidths and latencies beyond the what-if keys' ranges are refused") {
  CHECK(error_of("<host id=\"a\" speed=\"1e-300f\"/>\n") ==
        "p.xml:5: host \"a\": speed must be at least 1e+06f, got \"1e-300f\"");
  CHECK(error_of("<host id=\"a\" speed=\"1f\"/>\n").find("speed must be at least 1e+06f") != std::string::npos);
  CHECK(error_of("<host id=\"a\" speed=\"2e15f\"/>\n").find("speed must be at most 1e+15f") != std::string::npos);
  CHECK(error_of(link("1e-300bps", "1ms")) == "p.xml:6: link \"l\": bandwidth must be at least 1bps, got \"1e-300bps\"");
  CHECK(error_of(link("1Ebps", "1ms")).find("bandwidth must be at most 1e+15bps") != std::string::npos);
  CHECK(error_of(link("1Mbps", "1e300s")) == "p.xml:6: link \"l\": latency must be at most 1e+09s, got \"1e300s\"");
  // At the bounds, and the zeros that stay legal (a latency, a pstate not in use).
  CHECK(error_of("<host id=\"a\" speed=\"1Mf\"/>\n<host id=\"b\" speed=\"1Pf\"/>\n") == "");
  CHECK(error_of(link("1bps", "0")) == "");
  CHECK(error_of(link("125TBps", "1000000000s")) == "");
  CHECK(error_of("<host id=\"a\" speed=\"1Gf,0f\" pstate=\"0\"/>\n") == "");
  CHECK(error_of("<host id=\"a\" speed=\"1Gf,1f\" pstate=\"0\"/>\n").find("at least 1e+06f") != std::string::npos);
  // Every element with a rate: a cluster's speed and links, a backbone.
  CHECK(error_of("<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-1\" speed=\"1f\" bw=\"1Gbps\" lat=\"0\"/>\n")
            .find("speed must be at least") != std::string::npos);
  CHECK(error_of("<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"0.1bps\" lat=\"0\"/>\n")
            .find("bw must be at least 1bps") != std::string::npos);
}

TEST_CASE("platform bounds: a wattage above a megawatt is refused on hosts and links") {
  const std::string host = "<host id=\"a\" speed=\"1Gf\"><prop id=\"wattage_per_state\" value=\"1e308:1e308\"/></host>\n";
  CHECK(error_of(host).find("numbers of watts from 0 to 1e6") != std::string::npos);
  CHECK(error_of("<host id=\"a\" speed=\"1Gf\"><prop id=\"wattage_per_state\" value=\"1:1e6\"/></host>\n") == "");
  CHECK(error_of("<host id=\"a\" speed=\"1Gf\"><prop id=\"wattage_per_state\" value=\"1:2\"/><prop id=\"wattage_off\" "
                 "value=\"2e6\"/></host>\n")
            .find("wattage_off must be a number of watts from 0 to 1e6") != std::string::npos);
  CHECK(error_of("<link id=\"l\" bandwidth=\"1Mbps\" latency=\"0\"><prop id=\"wattage_range\" value=\"1:1e308\"/></link>\n")
            .find("wattage_range must be") != std::string::npos);
}
