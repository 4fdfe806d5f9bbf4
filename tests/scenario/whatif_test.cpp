// Platform what-ifs as scenario keys: `platform.links.<link>.{bandwidth,latency}` and
// `platform.hosts.<host>.{speed,cores}`, from --set or the scenario's object form, checked in
// load_scenario against the platform (did-you-mean on names, units, ranges) and recorded with the
// value before; the plain string form stays as it was.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "platform/check.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

const char* kPlatform = R"(<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="srv" speed="10Gf"/>
    <host id="pi-1" speed="1Gf" core="4"/>
    <host id="pi-2" speed="1Gf,2Gf"/>
    <link id="cloud-ingress" bandwidth="100Mbps" latency="1ms"/>
    <link id="access" bandwidth="10Mbps" latency="5ms" sharing_policy="SPLITDUPLEX"/>
    <route src="pi-1" dst="srv"><link_ctn id="access" direction="UP"/><link_ctn id="cloud-ingress"/></route>
    <route src="pi-2" dst="srv"><link_ctn id="cloud-ingress"/></route>
  </zone>
</platform>
)";

struct Fixture {
  TempDir dir;
  Fixture() { dir.write("platform.xml", kPlatform); }
  Scenario parse(const std::vector<std::string>& sets, json doc = minimal_doc()) const {
    return parse_in(dir, doc, sets);
  }
  std::string error(const std::vector<std::string>& sets, json doc = minimal_doc()) const {
    return parse_error(dir, doc, sets);
  }
};

}  // namespace

TEST_CASE("what-ifs: --set platform.links.NAME.bandwidth edits the platform text and is recorded") {
  const Fixture f;
  const Scenario s =
      f.parse({"platform.links.cloud-ingress.bandwidth=1Gbps", "platform.links.cloud-ingress.latency=20ms",
               "platform.hosts.pi-1.speed=2Gf", "platform.hosts.pi-1.cores=8"});
  REQUIRE(s.platform_overrides.size() == 4);
  CHECK(s.platform_overrides[0].key == "platform.links.cloud-ingress.bandwidth");
  CHECK(s.platform_overrides[0].value == "1Gbps");
  CHECK(s.platform_overrides[0].before == "100Mbps");
  CHECK(s.platform_overrides[1].key == "platform.links.cloud-ingress.latency");
  CHECK(s.platform_overrides[1].before == "1ms");
  CHECK(s.platform_overrides[2].before == "1Gf");
  CHECK(s.platform_overrides[3].value == 8);
  CHECK(s.platform_overrides[3].before == "4");
  CHECK(s.platform == f.dir / "platform.xml");
  CHECK(s.platform_xml.find("<link id=\"cloud-ingress\" bandwidth=\"1e+09bps\" latency=\"0.02s\"/>") !=
        std::string::npos);
  CHECK(s.platform_xml.find("<host id=\"pi-1\" speed=\"2e+09f\" core=\"8\"/>") != std::string::npos);
  REQUIRE(s.platform_info);
  CHECK(s.platform_info->hosts.count("pi-1") == 1);
  // The resolved scenario keeps the what-ifs, in SI units.
  const json& p = s.resolved.at("platform");
  CHECK(p.at("file") == (f.dir / "platform.xml").string());
  CHECK(p.at("links").at("cloud-ingress").at("bandwidth") == 1e9);
  CHECK(p.at("links").at("cloud-ingress").at("latency") == 0.02);
  CHECK(p.at("hosts").at("pi-1").at("cores") == 8);
  // describe() (edgetrain validate) lists them.
  CHECK(describe(s).find("what-if   platform.links.cloud-ingress.bandwidth = 1Gbps (was 100Mbps)\n") !=
        std::string::npos);
}

TEST_CASE("what-ifs: the object form in the scenario file equals --set, and the plain form is unchanged") {
  const Fixture f;
  json doc = minimal_doc();
  doc["platform"] = {{"file", "platform.xml"}, {"links", {{"cloud-ingress", {{"bandwidth", "1Gbps"}}}}}};
  const Scenario a = f.parse({}, doc);
  const Scenario b = f.parse({"platform.links.cloud-ingress.bandwidth=1Gbps"});
  CHECK(a.platform_xml == b.platform_xml);
  CHECK(a.resolved.at("platform") == b.resolved.at("platform"));
  const Scenario plain = f.parse({});
  CHECK(plain.resolved.at("platform") == (f.dir / "platform.xml").string());
  CHECK(plain.platform_xml.empty());
  CHECK(plain.platform_overrides.empty());
  CHECK_FALSE(plain.platform_info);  // not read: nothing needed it
  // null = the file's value: no what-if at all.
  const Scenario none = f.parse({"platform.links.cloud-ingress.bandwidth=null"});
  CHECK(none.platform_overrides.empty());
  CHECK(none.resolved.at("platform") == (f.dir / "platform.xml").string());
}

TEST_CASE("what-ifs: a SPLITDUPLEX link by its name changes both directions, NAME_UP one") {
  const Fixture f;
  const Scenario both = f.parse({"platform.links.access.bandwidth=20Mbps"});
  CHECK(both.platform_xml.find("<link id=\"access\" bandwidth=\"2e+07bps\"") != std::string::npos);
  CHECK(both.link_directions.empty());
  const Scenario up = f.parse({"platform.links.access_UP.bandwidth=20Mbps", "platform.links.access_UP.latency=2ms"});
  REQUIRE(up.link_directions.size() == 1);
  CHECK(up.link_directions[0].link == "access_UP");
  CHECK(*up.link_directions[0].bandwidth_bps == 2e7);
  CHECK(*up.link_directions[0].latency_s == 0.002);
  REQUIRE(up.platform_overrides.size() == 2);
  CHECK(up.platform_overrides[0].before == "10Mbps");
  // The XML cannot say it: the text keeps the link and says what is set at load.
  CHECK(up.platform_xml.find("<link id=\"access\" bandwidth=\"10Mbps\"") != std::string::npos);
  CHECK(up.platform_xml.find("access_UP set when the platform is loaded") != std::string::npos);
}

TEST_CASE("what-ifs: bad names and values give one line naming the key, with did-you-mean") {
  const Fixture f;
  CHECK(f.error({"platform.links.cloud-ingres.bandwidth=1Gbps"}) ==
        "platform.links.cloud-ingres: no link \"cloud-ingres\" in platform platform.xml (did you mean "
        "\"cloud-ingress\"?)");
  CHECK(f.error({"platform.links.zzz.bandwidth=1Gbps"}) ==
        "platform.links.zzz: no link \"zzz\" in platform platform.xml (links: access, access_DOWN, access_UP, "
        "cloud-ingress)");
  CHECK(f.error({"platform.hosts.pi-3.speed=2Gf"}) ==
        "platform.hosts.pi-3: no host \"pi-3\" in platform platform.xml (did you mean \"pi-1\"?)");
  CHECK(f.error({"platform.links.cloud-ingress.bandwith=1Gbps"}) ==
        "platform.links.cloud-ingress.bandwith: unknown key (did you mean \"bandwidth\"?)");
  CHECK(f.error({"platform.links.cloud-ingress.bandwidth=1Gbbs"}) ==
        "platform.links.cloud-ingress.bandwidth: cannot read \"1Gbbs\" as a bandwidth (use a number of bits per "
        "second or a unit: bps, kbps, Mbps, Gbps, Tbps, Bps, kBps, MBps, GBps, TBps, KiBps, MiBps, GiBps)");
  CHECK(f.error({"platform.links.cloud-ingress.bandwidth=0"}).rfind("platform.links.cloud-ingress.bandwidth: must be", 0) ==
        0);
  CHECK(f.error({"platform.links.cloud-ingress.latency=-1ms"})
            .rfind("platform.links.cloud-ingress.latency: must be", 0) == 0);
  CHECK(f.error({"platform.hosts.pi-1.cores=0"}) ==
        "platform.hosts.pi-1.cores: must be a positive integer or null, got 0");
  CHECK(f.error({"platform.hosts.pi-1.cores=2.5"}) ==
        "platform.hosts.pi-1.cores: expected a positive integer or null, got 2.5");
  CHECK(f.error({"platform.hosts.pi-2.speed=3Gf"}) ==
        "platform.hosts.pi-2.speed: host \"pi-2\" has several pstate speeds (1Gf,2Gf); what-ifs change hosts of one "
        "speed");
  CHECK(f.error({"platform.host.pi-1.speed=3Gf"}) ==
        "platform.host: unknown key (did you mean \"hosts\"?) (platform.xml is a SimGrid platform: its object form "
        "takes file, links and hosts)");
  CHECK(f.error({"platform.links=3"}) ==
        "platform.links: expected an object of link names, e.g. {\"cloud-ingress\": {\"bandwidth\": \"1Gbps\"}}, "
        "got 3");
}

TEST_CASE("what-ifs: speeds and bandwidths have the platform file's bounds (a run that can never finish is refused)") {
  const Fixture f;
  for (const char* set : {"platform.hosts.pi-1.speed=1f", "platform.hosts.pi-1.speed=1e-300", "platform.hosts.pi-1.speed=2e15",
                          "platform.links.cloud-ingress.bandwidth=1e-300", "platform.links.cloud-ingress.bandwidth=2e15",
                          "platform.links.cloud-ingress.latency=1e300"}) {
    CAPTURE(set);
    const std::string key = std::string(set).substr(0, std::string(set).find('='));
    CHECK(f.error({set}).rfind(key + ": must be", 0) == 0);
  }
  CHECK(f.error({"platform.hosts.pi-1.speed=1f"}).find("must be >= 1000000 f, got") != std::string::npos);
  CHECK(f.error({"platform.hosts.pi-1.speed=1Mf"}) == "<no error>");
  CHECK(f.error({"platform.links.cloud-ingress.bandwidth=1bps"}) == "<no error>");
}
