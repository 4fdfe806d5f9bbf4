// `edgetrain fleet` end to end: the files it writes, SimGrid loading a generated 2-site fleet
// (edgetrain validate, then a short timing-only run whose bytes cross each site's uplink), and
// bad input: exit 2, one line, no file left behind.
#include <doctest/doctest.h>

#include <fstream>
#include <set>

#include "../sim/cli_helpers.hpp"
#include "helpers.hpp"

namespace {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// A timing-only sync scenario over every device of `devices_csv`, aggregated by the cloud.
nlohmann::json scenario_over(const fs::path& devices_csv, const std::string& platform) {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& row : test::read_csv(devices_csv)) devices.push_back(row.at("host"));
  return {{"name", "fleet-run"},
          {"seed", 1},
          {"platform", platform},
          {"server", "cloud"},
          {"devices", devices},
          {"model", {{"name", "mlp"}, {"hidden", {16}}}},
          {"training", {{"mode", "sync"}, {"batch_size", 8}, {"lr", 0.1}, {"compute", "timing-only"}}},
          {"stop", {{"rounds", 2}}}};
}

}  // namespace

TEST_CASE("edgetrain fleet writes the platform and the device list, SimGrid loads it and runs on it") {
  const fs::path dir = test::fresh_dir("fleet-cli");
  write(dir / "two-sites.json", test::two_site_fleet().dump(2));
  const test::Result gen = test::run_cli(
      "fleet " + (dir / "two-sites.json").string() + " -o " + (dir / "two-sites.xml").string() + " --seed 4",
      "fleet-gen");
  CHECK(gen.err == "");
  REQUIRE(gen.status == 0);
  CHECK(gen.out.find("10 devices in 2 site(s), 1 site aggregator(s)") != std::string::npos);
  REQUIRE(fs::exists(dir / "two-sites.xml"));
  REQUIRE(fs::exists(dir / "two-sites.devices.csv"));
  CHECK(test::read_csv(dir / "two-sites.devices.csv").size() == 10);
  for (const auto& entry : fs::directory_iterator(dir)) {
    CHECK(entry.path().string().find(".tmp") == std::string::npos);  // no temporary file left
  }

  write(dir / "run.json", scenario_over(dir / "two-sites.devices.csv", "two-sites.xml").dump(2));
  const test::Result valid = test::run_cli("validate " + (dir / "run.json").string(), "fleet-validate");
  CHECK(valid.err == "");
  REQUIRE(valid.status == 0);
  CHECK(valid.out.find("platform: ") != std::string::npos);
  CHECK(valid.out.find("(12 hosts), server cloud") != std::string::npos);
  CHECK(valid.out.find("scenario is valid") != std::string::npos);

  const test::Result run =
      test::run_cli("run " + (dir / "run.json").string() + " --quiet --out " + (dir / "out").string(), "fleet-run");
  CHECK(run.err == "");
  REQUIRE(run.status == 0);
  CHECK(test::read_json(dir / "out/summary.json")["status"] == "completed");
  // Every byte a device sends crosses its own up link, its site's uplink (hall has one), the WAN
  // and the cloud's ingress.
  std::map<std::string, int64_t> link_bytes;
  for (const auto& row : test::read_csv(dir / "out/links.csv")) link_bytes[row.at("link")] = test::count(row, "bytes");
  std::map<std::string, std::string> site_of;
  for (const auto& row : test::read_csv(dir / "two-sites.devices.csv")) site_of[row.at("host")] = row.at("site");
  int64_t total = 0, hall = 0;
  for (const auto& row : test::read_csv(dir / "out/devices.csv")) {
    const int64_t up = test::count(row, "bytes_up");
    CHECK(up > 0);
    CHECK(link_bytes.at(row.at("host") + "-up") == up);
    total += up;
    if (site_of.at(row.at("host")) == "hall") hall += up;
  }
  CHECK(hall > 0);
  CHECK(link_bytes.at("hall-uplink-up") == hall);
  CHECK(link_bytes.at("wan_UP") == total);
  CHECK(link_bytes.at("cloud-ingress_UP") == total);
}

TEST_CASE("edgetrain fleet: bad input gives exit 2, one line, and no output file") {
  const fs::path dir = test::fresh_dir("fleet-cli-bad");
  nlohmann::json bad = test::two_site_fleet();
  bad["classes"]["pi"]["links"] = "fiber";
  write(dir / "bad.json", bad.dump(2));
  write(dir / "broken.json", "{\"name\": \"x\",\n  \"classes\": }");
  nlohmann::json wifi = test::two_site_fleet();  // a property SimGrid would read, outside a Wi-Fi zone
  wifi["classes"]["pi"]["properties"]["wifi_rate_level"] = 1;
  write(dir / "wifi.json", wifi.dump(2));
  nlohmann::json huge = test::two_site_fleet();  // records for a population, not a host each
  huge["devices"] = 2000000;
  write(dir / "huge.json", huge.dump(2));
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"fleet " + (dir / "bad.json").string() + " -o " + (dir / "bad.xml").string(),
       (dir / "bad.json").string() +
           ": classes.pi.links: unknown link class \"fiber\" (did you mean \"fibre\"?) (known: dsl, fibre)"},
      {"fleet " + (dir / "broken.json").string() + " -o " + (dir / "bad.xml").string(),
       (dir / "broken.json").string() + ":2:14: malformed JSON: "},
      {"fleet " + (dir / "missing.json").string() + " -o " + (dir / "bad.xml").string(),
       (dir / "missing.json").string() + ": cannot open file"},
      {"fleet " + (dir / "wifi.json").string() + " -o " + (dir / "bad.xml").string(),
       (dir / "wifi.json").string() + ": classes.pi.properties.wifi_rate_level: a fleet has no Wi-Fi zone"},
      {"fleet " + (dir / "huge.json").string() + " -o " + (dir / "bad.xml").string(),
       (dir / "huge.json").string() + ": 2000000 devices; a platform with a host per device holds at most 1000000 "
       "(a scenario keeps more as records: population.hosts \"slots\")"},
      {"fleet " + (dir / "bad.json").string(), "missing -o PLATFORM.xml"},
      {"fleet " + (dir / "bad.json").string() + " -o " + (dir / "bad.xml").string() + " --seed=-2",
       "--seed: must be a non-negative integer"},
      {"fleet " + (dir / "bad.json").string() + " -o " + (dir / "bad.xml").string() + " --sed 2", "unrecognised"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    const test::Result r = test::run_cli(c.args, "fleet-bad");
    CHECK(r.status == 2);
    CHECK(r.err.find("edgetrain fleet: " + c.message) == 0);
    CHECK(r.err.find('\n') != std::string::npos);
    const bool usage_follows = r.err.find("usage: ") != std::string::npos;
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == (usage_follows ? 2 : 1));
  }
  CHECK_FALSE(fs::exists(dir / "bad.xml"));
  CHECK_FALSE(fs::exists(dir / "bad.devices.csv"));
}

TEST_CASE("edgetrain fleet -o: written through a device or FIFO, refused over a special file or its own input") {
  const fs::path dir = test::fresh_dir("fleet-cli-outputs");
  nlohmann::json fleet = test::two_site_fleet();
  fleet["name"] = "a--b\x01-";  // "--" and a control character would break the XML comment naming it
  write(dir / "f.json", fleet.dump(2));
  const std::string f = (dir / "f.json").string();
  test::Result r = test::run_cli("fleet " + f + " -o /dev/stdout", "fleet-stdout");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.rfind("<?xml", 0) == 0);  // the platform alone on stdout; the messages on stderr
  CHECK(r.err.find("(no device list: it is not a regular file)") != std::string::npos);
  // The comment is well-formed XML: no "--" inside, no control character.
  const std::string comment = r.out.substr(r.out.find("<!--") + 4, r.out.find("-->") - r.out.find("<!--") - 4);
  CHECK(comment.find("--") == std::string::npos);
  CHECK(comment.find("fleet \"a- -b\\x01- \"") != std::string::npos);
  r = test::run_cli("fleet " + f + " -o /dev/null", "fleet-null");
  CHECK(r.status == 0);
  CHECK(fs::is_character_file("/dev/null"));
  CHECK(!fs::exists("/dev/null.devices.csv"));
  for (const std::string& own : {f, (dir / "link.json").string()}) {
    if (own != f) fs::create_symlink(f, own);
    r = test::run_cli("fleet " + f + " -o " + own, "fleet-own");
    CHECK(r.status == 2);
    CHECK(r.err == "edgetrain fleet: " + own + ": is the input " + f +
                       "; writing it would destroy what is read: choose another output file\n");
  }
  CHECK(test::slurp(dir / "f.json") == fleet.dump(2));
}

// Found by fuzz/fleet_fuzz (the file reader): a number beyond a double was an uncaught parser
// exception ("internal error", exit 1).
TEST_CASE("fleet CLI: a number beyond a double in the description is one line, exit 2") {
  const fs::path dir = test::fresh_dir("fleet-1e999");
  std::ofstream(dir / "f.json") << R"({"name": "x", "devices": 1e999})";
  const test::Result r = test::run_cli("fleet " + (dir / "f.json").string() + " -o " + (dir / "p.xml").string(), "fleet-1e999");
  CHECK(r.status == 2);
  CHECK(r.err == "edgetrain fleet: " + (dir / "f.json").string() +
                     ": malformed JSON: number overflow parsing '1e999'\n");
}
