// The platform checker on in-memory text: each class of value SimGrid 3.32 would abort on or
// misread is refused with FILE:LINE and what is wrong; valid platforms of every routing kind pass.
#include "platform/check.hpp"

#include <doctest/doctest.h>

#include <string>

#include "platform/units.hpp"

using namespace edgetrain::platform;

namespace {

const std::string kHead =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform "
    "version=\"4.1\">\n";

std::string wrap(const std::string& body, const std::string& routing = "Full") {
  return kHead + "<zone id=\"z\" routing=\"" + routing + "\">\n" + body + "</zone>\n</platform>\n";
}

// The message check_platform_text throws, or "" when the text passes.
std::string error_of(const std::string& xml, const CheckLimits& limits = {}) {
  try {
    check_platform_text(xml, "p.xml", limits);
  } catch (const PlatformFileError& e) {
    return e.what();
  }
  return "";
}

const std::string kTwoHosts =
    "<host id=\"a\" speed=\"1Gf\"/>\n<host id=\"b\" speed=\"1Gf\"/>\n<link id=\"l\" bandwidth=\"10Mbps\" "
    "latency=\"1ms\"/>\n<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n";

}  // namespace

TEST_CASE("SimGrid's unit syntax: speeds, bandwidths, times, lists") {
  CHECK(*parse_quantity("1Gf", Quantity::Speed) == 1e9);
  CHECK(*parse_quantity("2.5Mf", Quantity::Speed) == 2.5e6);
  CHECK(*parse_quantity("1megaflops", Quantity::Speed) == 1e6);
  CHECK(*parse_quantity("100", Quantity::Speed) == 100);
  CHECK(*parse_quantity("10Mbps", Quantity::Bandwidth) == 1.25e6);
  CHECK(*parse_quantity("1.25MBps", Quantity::Bandwidth) == 1.25e6);
  CHECK(*parse_quantity("1GBps", Quantity::Bandwidth) == 1e9);
  CHECK(*parse_quantity("100kbps", Quantity::Bandwidth) == 12500);
  CHECK(*parse_quantity("1KiBps", Quantity::Bandwidth) == 1024);
  CHECK(*parse_quantity("10ms", Quantity::Time) == doctest::Approx(0.01));
  CHECK(*parse_quantity("5us", Quantity::Time) == doctest::Approx(5e-6));
  CHECK(*parse_quantity("0", Quantity::Time) == 0);
  CHECK(*parse_quantity("-1s", Quantity::Time) == -1);  // the range is the caller's check
  for (const char* bad : {"", "Gf", "1 Gf", " 1Gf", "1GF", "inf", "nan", "0x10f", "1e999f", "1Gfx"}) {
    INFO(bad);
    CHECK_FALSE(parse_quantity(bad, Quantity::Speed).has_value());
  }
  CHECK_FALSE(parse_quantity("1KBps", Quantity::Bandwidth).has_value());  // SimGrid has kBps and KiBps, not KBps
  CHECK_FALSE(parse_quantity("10Mf", Quantity::Bandwidth).has_value());
  CHECK(split_list("1Gf, 500Mf", Quantity::Speed) == std::vector<std::string>{"1Gf", "500Mf"});
  CHECK(split_list("54Mbps;36Mbps,24Mbps", Quantity::Bandwidth) ==
        std::vector<std::string>{"54Mbps", "36Mbps", "24Mbps"});
}

TEST_CASE("valid platforms of every routing kind pass") {
  CHECK(error_of(wrap(kTwoHosts)) == "");
  CHECK(error_of(wrap(kTwoHosts, "Floyd")) == "");
  CHECK(error_of(wrap(kTwoHosts, "Dijkstra")) == "");
  CHECK(error_of(wrap(kTwoHosts, "DijkstraCache")) == "");
  CHECK(error_of(wrap(
            "<host id=\"a\" speed=\"1Gf,500Mf\" pstate=\"1\" core=\"4\"/>\n<host id=\"b\" speed=\"1Gf\"/>\n"
            "<link id=\"la\" bandwidth=\"1Gbps\" latency=\"0\" sharing_policy=\"SPLITDUPLEX\"/>\n"
            "<link id=\"lb\" bandwidth=\"1Gbps\" latency=\"0\"/>\n<host_link id=\"a\" up=\"la_UP\" down=\"la_DOWN\"/>\n"
            "<host_link id=\"b\" up=\"lb\" down=\"lb\"/>\n",
            "Cluster")) == "");
  CHECK(error_of(wrap("<host id=\"a\" speed=\"1Gf\" coordinates=\"1 2 3\"/>\n<host id=\"b\" speed=\"1Gf\" "
                      "coordinates=\"4 5 6\"/>\n",
                      "Vivaldi")) == "");
  CHECK(error_of(wrap("<peer id=\"p\" speed=\"1Gf\" bw_in=\"10Mbps\" bw_out=\"1Mbps\" coordinates=\"-1.5 2 0.5\"/>\n",
                      "Vivaldi")) == "");
  CHECK(error_of(wrap(
            "<cluster id=\"c\" prefix=\"n-\" suffix=\"\" radical=\"0-3,7\" speed=\"1Gf\" bw=\"125MBps\" "
            "lat=\"50us\" bb_bw=\"2.25GBps\" bb_lat=\"500us\"/>\n<cluster id=\"t\" prefix=\"t-\" suffix=\"\" "
            "radical=\"0-7\" speed=\"1Gf\" bw=\"1GBps\" lat=\"0\" topology=\"TORUS\" topo_parameters=\"2,2,2\"/>\n")) ==
        "");
  const std::string wifi =
      kHead +
      "<zone id=\"world\" routing=\"Full\">\n"
      "<zone id=\"cell\" routing=\"Wifi\"><prop id=\"access_point\" value=\"ap\"/>\n"
      "<host id=\"s1\" speed=\"1Gf\"/>\n<host id=\"s2\" speed=\"1Gf\"><prop id=\"wifi_rate_level\" "
      "value=\"2\"/></host>\n"
      "<link id=\"air\" sharing_policy=\"WIFI\" bandwidth=\"54Mbps,36Mbps,24Mbps\" latency=\"0ms\"/>\n"
      "<router id=\"ap\"/></zone>\n"
      "<zone id=\"wired\" routing=\"Full\"><host id=\"srv\" speed=\"1Gf\"/></zone>\n"
      "<link id=\"wan\" bandwidth=\"100Mbps\" latency=\"10ms\"/>\n"
      "<zoneRoute src=\"cell\" dst=\"wired\" gw_src=\"ap\" gw_dst=\"srv\"><link_ctn id=\"wan\"/></zoneRoute>\n"
      "</zone></platform>\n";
  const PlatformInfo info = check_platform_text(wifi, "w.xml");
  REQUIRE(info.wifi_zones.size() == 1);
  CHECK(info.wifi_zones[0].link == "air");
  CHECK(info.wifi_zones[0].access_point == "ap");
  CHECK(info.wifi_zones[0].rates_Bps == std::vector<double>{54e6 / 8, 36e6 / 8, 24e6 / 8});
  CHECK(info.wifi_zones[0].stations == std::vector<std::pair<std::string, int>>{{"s1", 0}, {"s2", 2}});
  CHECK(info.hosts.at("srv").zones.back().id == "wired");
  CHECK(info.hosts.at("s1").zones.back().routing == Routing::Wifi);
}

TEST_CASE("host values SimGrid aborts on are refused with file, line and the value") {
  CHECK(error_of(wrap("<host id=\"x\" speed=\"0f\"/>\n")) == "p.xml:5: host \"x\": speed must be > 0, got \"0f\"");
  CHECK(error_of(wrap("<host id=\"x\" speed=\"-1Gf\"/>\n")) == "p.xml:5: host \"x\": speed must be > 0, got \"-1Gf\"");
  // Only the pstate in use must be > 0; another may be 0 (SimGrid's energy_boot.xml has one).
  CHECK(error_of(wrap("<host id=\"x\" speed=\"1Gf,0f\"/>\n")) == "");
  CHECK(error_of(wrap("<host id=\"x\" speed=\"1Gf,0f\" pstate=\"1\"/>\n")) ==
        "p.xml:5: host \"x\": speed must be > 0, got \"0f\"");
  CHECK(error_of(wrap("<host id=\"x\" speed=\"1Gf,-1f\"/>\n")) ==
        "p.xml:5: host \"x\": speed must be >= 0, got \"-1f\"");
  CHECK(error_of(wrap("<host id=\"x\" speed=\"1Gf\" core=\"0\"/>\n")) ==
        "p.xml:5: host \"x\": core must be a whole number >= 1, got \"0\"");
  CHECK(error_of(wrap("<host id=\"x\" speed=\"fast\"/>\n")).find("speed must be a speed such as") != std::string::npos);
  CHECK(error_of(wrap("<host id=\"x\" speed=\"1Gf\" pstate=\"1\"/>\n")).find("pstate must index") != std::string::npos);
  CHECK(error_of(wrap("<host id=\"x\" speed=\"1Gf\" speed_file=\"s.txt\"/>\n")).find("speed_file is not supported") !=
        std::string::npos);
  CHECK(error_of(wrap("<host id=\"x\" speed=\"1Gf\" coordinates=\"1 2\"/>\n")).find("three numbers") !=
        std::string::npos);
  CHECK(error_of(wrap("<host id=\"x\" speed=\"1Gf\"/>\n<host id=\"x\" speed=\"1Gf\"/>\n")) ==
        "p.xml:6: host \"x\": the name \"x\" is already used by another host, router or zone");
}

TEST_CASE("link values SimGrid aborts on or misreads are refused") {
  CHECK(error_of(wrap("<link id=\"l\" bandwidth=\"0\"/>\n")) ==
        "p.xml:5: link \"l\": bandwidth must be > 0, got \"0\"");
  CHECK(error_of(wrap("<link id=\"l\" bandwidth=\"-5Mbps\"/>\n")) ==
        "p.xml:5: link \"l\": bandwidth must be > 0, got \"-5Mbps\"");
  CHECK(error_of(wrap("<link id=\"l\" bandwidth=\"1Mbps\" latency=\"-1ms\"/>\n")) ==
        "p.xml:5: link \"l\": latency must be >= 0, got \"-1ms\"");
  CHECK(error_of(wrap("<link id=\"l\" bandwidth=\"1KBps\"/>\n")).find("bandwidth must be a bandwidth such as") !=
        std::string::npos);
  CHECK(error_of(wrap("<link id=\"l\" bandwidth=\"1Mbps,2Mbps\"/>\n")).find("only a WIFI link") != std::string::npos);
  CHECK(error_of(wrap("<link id=\"l\" bandwidth=\"1Mbps\" sharing_policy=\"LOOSE\"/>\n")).find("sharing_policy must") !=
        std::string::npos);
  CHECK(error_of(wrap("<link id=\"l\" bandwidth=\"1Mbps\"/>\n")) ==
        "p.xml:5: link \"l\": attribute latency is required");  // SimGrid 3.32's parser fails without it
  CHECK(error_of(wrap("<link id=\"l\" bandwidth=\"1Mbps\" latency=\"0\"/>\n<link id=\"l\" bandwidth=\"1Mbps\" "
                      "latency=\"0\"/>\n")) == "p.xml:6: link \"l\": link \"l\" is declared twice");
  CHECK(error_of(wrap("<link id=\"l\" bandwidth=\"1Mbps\" sharing_policy=\"WIFI\"/>\n"))
            .find("inside a routing=\"Wifi\"") != std::string::npos);
  CHECK(error_of(wrap("<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"0Bps\" "
                      "lat=\"0\"/>\n")) == "p.xml:5: cluster \"c\": bw must be > 0, got \"0Bps\"");
  CHECK(error_of(wrap("<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" core=\"0\" "
                      "bw=\"1Gbps\" lat=\"0\"/>\n"))
            .find("core must be") != std::string::npos);
  CHECK(error_of(wrap("<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1Gbps\" "
                      "lat=\"0\" bb_bw=\"0\"/>\n"))
            .find("bb_bw must be > 0") != std::string::npos);
  CHECK(error_of(wrap("<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1Gbps\" "
                      "lat=\"0\" topology=\"TORUS\" topo_parameters=\"2,2\"/>\n"))
            .find("has 4 hosts but radical gives only 2") != std::string::npos);
  // A cluster is as large as memory allows (4.7 kB a host in a run), counted before a host is made.
  auto cluster = [](const std::string& radical) {
    return wrap("<cluster id=\"c\" prefix=\"n\" suffix=\"\" radical=\"" + radical +
                "\" speed=\"1Gf\" bw=\"1Gbps\" lat=\"0\"/>\n");
  };
  CHECK(error_of(cluster("0-999999999"), CheckLimits{1e9}) ==
        "p.xml:5: cluster \"c\": the platform's clusters hold 1000000000 hosts, which need about 4.7 TB in a run "
        "(4.7 kB a host), more than the 1 GB available");
  CHECK(error_of(cluster("0-199999,300000-300001"), CheckLimits{1e9}) == "");       // 200,002 hosts: 940 MB
  CHECK(error_of(cluster("0-212765"), CheckLimits{1e9}).find("212766 hosts") != std::string::npos);
  CHECK(error_of(cluster("0-999999999")).find("hosts, which need about 4.7 TB") != std::string::npos);  // this machine
}

TEST_CASE("zones and routes SimGrid aborts on are refused") {
  CHECK(error_of(wrap("", "Star")).find("routing must be one of") != std::string::npos);
  CHECK(error_of(wrap("<host id=\"a\" speed=\"1Gf\"/>\n", "Vivaldi")) ==
        "p.xml:5: host \"a\": a host or router in Vivaldi zone \"z\" needs coordinates=\"x y h\"");
  CHECK(error_of(wrap("<zone id=\"dc\" routing=\"Full\"/>\n", "Wifi")) ==
        "p.xml:5: zone \"dc\": a zone with routing=\"Wifi\" (one Wi-Fi cell) cannot contain zones");
  CHECK(error_of(wrap("<peer id=\"p\" speed=\"1Gf\" bw_in=\"1Mbps\" bw_out=\"1Mbps\"/>\n"))
            .find("must be inside a routing=\"Vivaldi\" zone") != std::string::npos);
  CHECK(error_of(wrap(kTwoHosts + "<route src=\"b\" dst=\"a\"><link_ctn id=\"l\"/></route>\n")) ==
        "p.xml:9: <route>: a route between \"b\" and \"a\" already exists in this direction (routes are symmetrical "
        "unless symmetrical=\"NO\")");
  CHECK(error_of(wrap(kTwoHosts + "<route src=\"b\" dst=\"a\" symmetrical=\"NO\"><link_ctn id=\"l\"/></route>\n"))
            .find("already exists") != std::string::npos);
  CHECK(error_of(wrap("<host id=\"a\" speed=\"1Gf\"/>\n<route src=\"a\" dst=\"nope\"/>\n"))
            .find("dst \"nope\" is not a host, router or zone") != std::string::npos);
  CHECK(error_of(wrap("<host id=\"a\" speed=\"1Gf\"/>\n<host id=\"b\" speed=\"1Gf\"/>\n"
                      "<route src=\"a\" dst=\"b\"><link_ctn id=\"gone\"/></route>\n"))
            .find("no link \"gone\"") != std::string::npos);
  CHECK(error_of(wrap("<host id=\"a\" speed=\"1Gf\"/>\n<host id=\"b\" speed=\"1Gf\"/>\n<route src=\"a\" dst=\"b\"/>\n",
                      "None"))
            .find("routing=\"None\" cannot hold routes") != std::string::npos);
  CHECK(error_of(wrap("<host id=\"a\" speed=\"1Gf\"/>\n", "Cluster")).find("needs a <host_link>") != std::string::npos);
  CHECK(error_of(wrap("<include file=\"other.xml\"/>\n")).find("SimGrid 3.32 cannot read it") != std::string::npos);
  CHECK(error_of(wrap("<trace id=\"t\" periodicity=\"1\"/>\n")).find("faults") != std::string::npos);
  CHECK(error_of(kHead + "<zone id=\"z\" routing=\"Full\"><host id=\"a\" speed=\"1Gf\"/></zone>"
                         "<actor host=\"a\" function=\"f\"/></platform>")
            .find("edgetrain starts its own actors") != std::string::npos);
  CHECK(error_of(wrap("<gizmo/>\n")) == "p.xml:5: unknown element <gizmo>");
  CHECK(error_of("<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"3\"/>")
            .find("version must be") != std::string::npos);
}

TEST_CASE("Wi-Fi zones: one WIFI link, latency 0, an access point, rate levels in range") {
  auto cell = [](const std::string& body, const std::string& ap = "<prop id=\"access_point\" value=\"ap\"/>") {
    return kHead + "<zone id=\"world\" routing=\"Full\">\n<zone id=\"cell\" routing=\"Wifi\">" + ap +
           "\n<router id=\"ap\"/>\n" + body + "</zone></zone></platform>\n";
  };
  const std::string air = "<link id=\"air\" sharing_policy=\"WIFI\" bandwidth=\"54Mbps,24Mbps\" latency=\"0\"/>\n";
  CHECK(error_of(cell("<host id=\"s\" speed=\"1Gf\"/>\n" + air)) == "");
  CHECK(error_of(cell("<host id=\"s\" speed=\"1Gf\"/>\n")).find("exactly one link") != std::string::npos);
  CHECK(error_of(cell("<host id=\"s\" speed=\"1Gf\"/>\n" + air, "")).find("access_point") != std::string::npos);
  CHECK(error_of(cell("<host id=\"s\" speed=\"1Gf\"/>\n<link id=\"air\" sharing_policy=\"WIFI\" bandwidth=\"54Mbps\" "
                      "latency=\"1ms\"/>\n"))
            .find("must have latency 0") != std::string::npos);
  CHECK(error_of(cell("<host id=\"s\" speed=\"1Gf\"><prop id=\"wifi_rate_level\" value=\"2\"/></host>\n" + air)) ==
        "p.xml:7: host \"s\": wifi_rate_level 2 is past the 2 rate levels of Wi-Fi link \"air\" (levels count from 0)");
  CHECK(error_of(cell("<host id=\"s\" speed=\"1Gf\"><prop id=\"wifi_rate_level\" value=\"-1\"/></host>\n" + air))
            .find("wifi_rate_level must be a whole number >= 0") != std::string::npos);
  CHECK(error_of(wrap("<host id=\"s\" speed=\"1Gf\"><prop id=\"wifi_rate_level\" value=\"1\"/></host>\n"))
            .find("not in a routing=\"Wifi\" zone") != std::string::npos);
}

TEST_CASE("malformed XML and unreadable files are one clean line") {
  CHECK(error_of("<?xml version=\"1.0\"?>\n<platform version=\"4.1\"><zone id=\"z\"")
            .rfind("p.xml:2: not well-formed XML", 0) == 0);
  CHECK(error_of("").find("not well-formed XML") != std::string::npos);
  CHECK(error_of(std::string("<platform version=\"4.1\">\0</platform>", 33)).find("p.xml:1") == 0);
  CHECK(error_of("<platform version=\"4.1\"/>") ==
        "p.xml:1: SimGrid needs <!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\"> before <platform>");
  CHECK_THROWS_AS(check_platform_file("/nonexistent/platform.xml"), PlatformFileError);
}

TEST_CASE("a message quoting control bytes of the file stays one line (found by fuzz/platform)") {
  const std::string message = error_of(wrap("<host id=\"x\" speed=\"1\x01Gf\"/>\n"));
  CHECK(message.rfind("p.xml:5: host \"x\": speed must be a speed", 0) == 0);
  CHECK(message.find(", got \"1\\x01Gf\"") != std::string::npos);
}

TEST_CASE("energy properties SimGrid aborts on or misreads are refused, and the platform says which plugins it needs") {
  auto host = [](const std::string& speed, const std::string& props) {
    return wrap("<host id=\"h\" speed=\"" + speed + "\" core=\"4\">" + props + "</host>\n");
  };
  auto prop = [](const std::string& id, const std::string& value) {
    return "<prop id=\"" + id + "\" value=\"" + value + "\"/>";
  };
  const PlatformInfo fine = check_platform_text(
      host("2Gf,1Gf", prop("wattage_per_state", "2.7:3:6.4, 2:2.5:4") + prop("wattage_off", "0.1")), "p.xml");
  CHECK(fine.host_energy);
  CHECK_FALSE(fine.link_energy);
  CHECK_FALSE(check_platform_text(wrap(kTwoHosts), "p.xml").host_energy);
  CHECK(error_of(host("2Gf,1Gf", prop("wattage_per_state", "2.7:6.4"))) ==
        "p.xml:5: host \"h\": wattage_per_state must give one \"idle:epsilon:all_cores\" entry per pstate: the host "
        "has 2 speed(s), got 1 entries in \"2.7:6.4\"");
  CHECK(error_of(host("2Gf", prop("wattage_per_state", "2.7:6.4W"))) ==
        "p.xml:5: host \"h\": wattage_per_state must be \"idle:all_cores\" or \"idle:epsilon:all_cores\" with "
        "numbers of watts from 0 to 1e6, got \"2.7:6.4W\"");
  CHECK(error_of(host("2Gf", prop("wattage_per_state", "-1:6"))).find("numbers of watts from 0 to 1e6") != std::string::npos);
  CHECK(error_of(host("2Gf", prop("wattage_per_state", "1:2:3:4"))).find("got \"1:2:3:4\"") != std::string::npos);
  CHECK(error_of(host("2Gf", prop("wattage_per_state", "5:3"))).find("not below the one before it") !=
        std::string::npos);
  CHECK(error_of(host("2Gf", prop("wattage_per_state", "1:2") + prop("wattage_off", "ten"))) ==
        "p.xml:5: host \"h\": wattage_off must be a number of watts from 0 to 1e6, got \"ten\"");
  CHECK(error_of(host("2Gf", prop("wattage_off", "1"))).find("without wattage_per_state") != std::string::npos);
  // A cluster's properties are each member's, against the cluster's pstates.
  CHECK(error_of(kHead +
                 "<cluster id=\"c\" prefix=\"n-\" suffix=\"\" radical=\"0-3\" speed=\"1Gf\" bw=\"1Gbps\" "
                 "lat=\"1ms\">" +
                 prop("wattage_per_state", "1:2,1:3") + "</cluster>\n</platform>\n")
            .find("the host has 1 speed(s), got 2 entries") != std::string::npos);
  // Links: one "idle:busy" pair; SimGrid's link plugin skips Wi-Fi links and never reads wattage_off.
  auto link = [](const std::string& props) {
    return wrap("<link id=\"l\" bandwidth=\"1Mbps\" latency=\"1ms\">" + props + "</link>\n");
  };
  CHECK(check_platform_text(link(prop("wattage_range", "0.5:2.5")), "p.xml").link_energy);
  CHECK(error_of(link(prop("wattage_range", "2"))) ==
        "p.xml:5: link \"l\": wattage_range must be \"idle:busy\" (watts), got \"2\"");
  CHECK(error_of(link(prop("wattage_range", "3:1"))).find("not below the one before it") != std::string::npos);
  CHECK(error_of(link(prop("watt_range", "1:3"))).find("renamed wattage_range") != std::string::npos);
  CHECK(error_of(link(prop("wattage_off", "1"))).find("wattage_off is not read on links") != std::string::npos);
}

TEST_CASE("the order of a zone's elements that SimGrid's parser refuses is refused with FILE:LINE") {
  // kTwoHosts: lines 5-8 of the wrapped platform (hosts a and b, link l, the route a -> b).
  CHECK(error_of(wrap(kTwoHosts + "<link id=\"m\" bandwidth=\"1Mbps\" latency=\"1ms\"/>\n")) ==
        "p.xml:9: link \"m\" after <route> (line 8): SimGrid reads a zone's routes after all its other elements; "
        "move it before the first route");
  CHECK(error_of(wrap(kTwoHosts + "<host id=\"c\" speed=\"1Gf\"/>\n")).rfind("p.xml:9: host \"c\" after <route>", 0) ==
        0);
  CHECK(error_of(wrap(kTwoHosts + "<router id=\"r\"/>\n")).rfind("p.xml:9: router \"r\" after <route>", 0) == 0);
  CHECK(error_of(wrap("<host id=\"a\" speed=\"1Gf\"/>\n<prop id=\"k\" value=\"v\"/>\n")) ==
        "p.xml:6: <prop> of zone \"z\" after host \"a\" (line 5): a zone's properties come before its other elements");
  CHECK(error_of(wrap("<host id=\"a\" speed=\"1Gf\"/>\n<zone id=\"in\" routing=\"Full\"/>\n")) ==
        "p.xml:6: zone \"in\" in zone \"z\", which holds host \"a\" (line 5): a zone holds either zones, clusters and "
        "peers (joined by <zoneRoute>) or hosts and routers (joined by <route>), not both; put them in zones of "
        "their own");
  CHECK(error_of(wrap("<cluster id=\"c\" prefix=\"n-\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1Gbps\" "
                      "lat=\"1ms\"/>\n<host id=\"a\" speed=\"1Gf\"/>\n"))
            .rfind("p.xml:6: host \"a\" in zone \"z\", which holds cluster \"c\" (line 5)", 0) == 0);
  CHECK(error_of(wrap("<host id=\"a\" speed=\"1Gf\" coordinates=\"1 2 3\"/>\n<peer id=\"p\" speed=\"1Gf\" "
                      "bw_in=\"10Mbps\" bw_out=\"1Mbps\" coordinates=\"-1.5 2 0.5\"/>\n",
                      "Vivaldi"))
            .rfind("p.xml:6: peer \"p\" in zone \"z\", which holds host \"a\"", 0) == 0);
  // A zone of zones: a link or a zone after a zoneRoute, and a host route among zone routes.
  const std::string two_zones =
      "<zone id=\"z1\" routing=\"Full\"><host id=\"a\" speed=\"1Gf\"/></zone>\n"
      "<zone id=\"z2\" routing=\"Full\"><host id=\"b\" speed=\"1Gf\"/></zone>\n"
      "<link id=\"l\" bandwidth=\"1Mbps\" latency=\"1ms\"/>\n"
      "<zoneRoute src=\"z1\" dst=\"z2\" gw_src=\"a\" gw_dst=\"b\"><link_ctn id=\"l\"/></zoneRoute>\n";
  CHECK(error_of(wrap(two_zones)) == "");
  CHECK(error_of(wrap(two_zones + "<link id=\"m\" bandwidth=\"1Mbps\" latency=\"1ms\"/>\n"))
            .rfind("p.xml:9: link \"m\" after <zoneRoute> (line 8)", 0) == 0);
  CHECK(error_of(wrap(two_zones + "<zone id=\"z3\" routing=\"Full\"><host id=\"c\" speed=\"1Gf\"/></zone>\n"))
            .rfind("p.xml:9: zone \"z3\" after <zoneRoute> (line 8)", 0) == 0);
  CHECK(error_of(wrap(two_zones + "<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>\n"))
            .rfind("p.xml:9: <route> in zone \"z\", which holds zone \"z1\" (line 5)", 0) == 0);
  // Links may come before, between or after hosts, and a zone's props first.
  CHECK(error_of(wrap("<prop id=\"k\" value=\"v\"/>\n<link id=\"l\" bandwidth=\"1Mbps\" latency=\"1ms\"/>\n<host "
                      "id=\"a\" speed=\"1Gf\"/>\n<host id=\"b\" speed=\"1Gf\"/>\n<route src=\"a\" dst=\"b\"><link_ctn "
                      "id=\"l\"/></route>\n")) == "");
}

TEST_CASE("a second top-level zone, which SimGrid 3.32 cannot attach, is refused with FILE:LINE") {
  const std::string two = kHead + "<zone id=\"a\" routing=\"Full\"><host id=\"x\" speed=\"1Gf\"/></zone>\n" +
                          "<cluster id=\"c\" prefix=\"n-\" suffix=\"\" radical=\"0-1\" speed=\"1Gf\" bw=\"1Gbps\" "
                          "lat=\"1ms\"/>\n</platform>\n";
  CHECK(error_of(two) ==
        "p.xml:5: cluster \"c\" beside zone \"a\" (line 4): SimGrid 3.32 takes one top-level zone; put both inside "
        "one <zone>");
}
