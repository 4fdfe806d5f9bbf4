// Platform what-ifs on the text: only the edited attribute values change, every other byte stays,
// a missing core attribute is added, and the edited text passes the checker with the new values.
#include "platform/edit.hpp"

#include <doctest/doctest.h>

#include <string>

#include "platform/check.hpp"

using namespace edgetrain::platform;

namespace {

const std::string kPlatform =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    "<!-- a comment -->\n<platform version=\"4.1\">\n  <zone id=\"z\" routing=\"Full\">\n"
    "    <host id=\"srv\" speed=\"10Gf\"/>\n    <host id='dev' speed='1Gf' core=\"2\"/>\n"
    "    <link id=\"up\" bandwidth=\"1MBps\" latency=\"10ms\"/>\n"
    "    <link id=\"dev\" bandwidth=\"5Mbps\" latency=\"1ms\" sharing_policy=\"SPLITDUPLEX\"/>\n"
    "    <route src=\"dev\" dst=\"srv\"><link_ctn id=\"up\"/><link_ctn id=\"dev\" direction=\"UP\"/></route>\n"
    "  </zone>\n</platform>\n";

}  // namespace

TEST_CASE("platform edit: only the attribute values change, and lines stay where they were") {
  const EditedText out = edit_platform_text(kPlatform, {{"up", Attribute::Bandwidth, "2e+06bps"},
                                                        {"dev", Attribute::Speed, "3e+09f"},
                                                        {"srv", Attribute::Cores, "4"},
                                                        {"dev", Attribute::Latency, "0.5s"}});
  REQUIRE(out.before.size() == 4);
  CHECK(out.before[0] == "1MBps");
  CHECK(out.before[1] == "1Gf");
  CHECK(out.before[2] == "1");    // no core attribute: SimGrid's default
  CHECK(out.before[3] == "1ms");  // the link "dev", not the host of the same id
  std::string expected = kPlatform;
  auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = expected.find(from);
    REQUIRE(at != std::string::npos);
    expected.replace(at, from.size(), to);
  };
  replace("bandwidth=\"1MBps\"", "bandwidth=\"2e+06bps\"");
  replace("speed='1Gf'", "speed='3e+09f'");
  replace("speed=\"10Gf\"/>", "speed=\"10Gf\" core=\"4\"/>");
  replace("latency=\"1ms\"", "latency=\"0.5s\"");
  CHECK(out.xml == expected);
  const PlatformInfo info = check_platform_text(out.xml, "edited.xml");
  CHECK(info.hosts.at("dev").line == 7);
}

TEST_CASE("platform edit: a note goes before <platform> on its line, and unknown ids are refused") {
  const EditedText out = edit_platform_text(kPlatform, {}, "what-ifs: up -- 2Mbps");
  CHECK(out.xml.find("<!-- a comment -->\n<!-- what-ifs: up -  2Mbps --><platform version") != std::string::npos);
  CHECK(check_platform_text(out.xml, "noted.xml").hosts.at("dev").line == 7);
  CHECK_THROWS_AS(edit_platform_text(kPlatform, {{"nope", Attribute::Bandwidth, "1bps"}}), PlatformFileError);
  CHECK_THROWS_AS(edit_platform_text(kPlatform, {{"up", Attribute::Speed, "1f"}}), PlatformFileError);  // a link
}

TEST_CASE("platform edit: SimGrid's spelling of values reads back exactly") {
  CHECK(simgrid_text(1e9, Attribute::Bandwidth) == "1e+09bps");
  CHECK(simgrid_text(0.02, Attribute::Latency) == "0.02s");
  CHECK(simgrid_text(2.5e9, Attribute::Speed) == "2.5e+09f");
  CHECK(simgrid_text(4, Attribute::Cores) == "4");
}

TEST_CASE("platform check: hosts in file order with their properties, links with their element") {
  const std::string xml =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n<zone id=\"hosts\" routing=\"Full\">\n"
      "<host id=\"b\" speed=\"1Gf\"><prop id=\"class\" value=\"pi4\"/></host>\n<host id=\"a\" speed=\"1Gf\"/>\n"
      "</zone>\n<cluster id=\"c\" prefix=\"n-\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1Gbps\" lat=\"1ms\">"
      "<prop id=\"site\" value=\"s1\"/></cluster>\n"
      "<link id=\"l\" bandwidth=\"1Gbps\" latency=\"1ms\" sharing_policy=\"SPLITDUPLEX\"/>\n"
      "</zone>\n</platform>\n";
  const PlatformInfo info = check_platform_text(xml, "p.xml");
  CHECK(info.host_order == std::vector<std::string>{"b", "a", "n-0", "n-1"});
  CHECK(info.hosts.at("b").properties.at("class") == "pi4");
  CHECK(info.hosts.at("a").properties.empty());
  CHECK(info.hosts.at("n-1").properties.at("site") == "s1");
  CHECK(info.hosts.at("n-1").element == "cluster");
  CHECK(info.links.at("l").policy == "SPLITDUPLEX");
  CHECK(info.links.at("l_UP").element == "link");
}
