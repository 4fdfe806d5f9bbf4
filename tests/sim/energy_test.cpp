// Whole runs on tests/sim/data/energy.xml (the two-devices layout with wattages), checked against
// SimGrid's energy model by hand: a host draws `idle` watts while it waits, epsilon + (all_cores -
// epsilon) x its share of cores in use while it computes, wattage_off while a fault has it off;
// a link idle + (busy - idle) x its utilisation. Hosts and links without wattage report nothing.
#include <doctest/doctest.h>

#include "two_devices.hpp"

using namespace test;

namespace {

const std::string kEnergy = "--set platform=energy.xml --set 'devices=[\"dev-a\",\"dev-b\",\"dev-c\"]' ";

// devices.csv's energy_j against the host's time split: idle, computing on one core, off.
double expected_device_j(const std::map<std::string, std::string>& d, double sim_time_s, double idle_w,
                         double one_core_w, double off_w) {
  const double compute = num(d, "compute_s"), off = num(d, "offline_s");
  return idle_w * (sim_time_s - compute - off) + one_core_w * compute + off_w * off;
}

// A cell that may be empty (read_csv drops a row's empty last cells).
std::string cell(const std::map<std::string, std::string>& row, const std::string& key) {
  const auto it = row.find(key);
  return it == row.end() ? "" : it->second;
}

}  // namespace

TEST_CASE("energy: hosts draw idle watts while waiting, their share of cores computing, wattage_off when off") {
  // dev-a (one core, 2:3:5 W, 0.5 W off) is off from 0.02 s to 0.5 s; dev-b has four cores (1:2:10
  // W: one busy core draws 2 + 8/4 W); dev-c has no wattage: empty, and no SimGrid warning either.
  const fs::path out = fresh_dir("energy-hosts");
  const Result r =
      run_cli("run " + (kData / "two-devices.json").string() + " --quiet --out " + out.string() + " " + kEnergy +
                  "--set training.compute=timing-only --set training.round_timeout_s=0.1 "
                  "--set 'faults={\"devices\":[{\"device\":\"dev-a\",\"off_s\":[[0.02,0.5]]}]}' "
                  "--set stop.rounds=null --set stop.sim_time_s=1",
              "energy-hosts");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  const auto summary = read_json(out / "summary.json");
  const double t = summary["sim_time_s"];
  const auto devices = read_csv(out / "devices.csv");
  REQUIRE(devices.size() == 3);
  CHECK(num(devices[0], "offline_s") == doctest::Approx(0.48).epsilon(1e-9));
  CHECK(num(devices[0], "compute_s") > 0);
  CHECK(num(devices[0], "energy_j") == doctest::Approx(expected_device_j(devices[0], t, 2, 5, 0.5)).epsilon(1e-9));
  CHECK(num(devices[1], "energy_j") == doctest::Approx(expected_device_j(devices[1], t, 1, 4, 0)).epsilon(1e-9));
  CHECK(cell(devices[2], "energy_j").empty());
  const auto& e = summary["energy"];
  CHECK(e["devices_j"].get<double>() ==
        doctest::Approx(num(devices[0], "energy_j") + num(devices[1], "energy_j")).epsilon(1e-12));
  // The server (20:30:100 W, one core) computes each round's averaging and update.
  CHECK(e["aggregators_j"].get<double>() > 20 * t);
  CHECK(e["energy_to_target_j"].is_null());  // no target (and no evaluation in a timing-only run)
}

TEST_CASE("energy: a link's energy follows its full-load time, both directions of a SPLITDUPLEX link counted") {
  const fs::path out = fresh_dir("energy-links");
  const Result r = run_cli("run " + (kData / "two-devices.json").string() + " --quiet --out " + out.string() + " " +
                               kEnergy + "--set training.compute=timing-only",
                           "energy-links");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  const auto summary = read_json(out / "summary.json");
  const double t = summary["sim_time_s"];
  std::map<std::string, std::map<std::string, std::string>> links;
  for (const auto& l : read_csv(out / "links.csv")) links[l.at("link")] = l;
  // idle x T + (busy - idle) x bytes / bandwidth: a-up 0.25:4.25 W at 1 MB/s, b-link 1:2 W at 2 MB/s each way.
  const double a = 0.25 * t + 4 * num(links["a-up"], "bytes") / 1e6;
  const double b_up = 1 * t + num(links["b-link_UP"], "bytes") / 2e6;
  const double b_down = 1 * t + num(links["b-link_DOWN"], "bytes") / 2e6;
  CHECK(num(links["a-up"], "bytes") > 0);
  CHECK(num(links["a-up"], "energy_j") == doctest::Approx(a).epsilon(1e-9));
  CHECK(num(links["b-link_UP"], "energy_j") == doctest::Approx(b_up).epsilon(1e-9));
  CHECK(num(links["b-link_DOWN"], "energy_j") == doctest::Approx(b_down).epsilon(1e-9));
  // Lone flows at full bandwidth: the full-load time is the busy time less one latency per message.
  const auto& up = links["b-link_UP"];
  CHECK(num(up, "bytes") / 2e6 == doctest::Approx(num(up, "busy_s") - 0.005 * num(up, "messages")).epsilon(1e-9));
  CHECK(cell(links["c-up"], "energy_j").empty());
  CHECK(cell(links["a-down"], "energy_j").empty());
  const auto& e = summary["energy"];
  CHECK(e["links_j"].get<double>() == doctest::Approx(a + b_up + b_down).epsilon(1e-9));
  CHECK(e["total_j"].get<double>() ==
        doctest::Approx(e["devices_j"].get<double>() + e["aggregators_j"].get<double>() + e["links_j"].get<double>())
            .epsilon(1e-12));
  CHECK(summary["energy_j"] == e["total_j"]);
  // `validate` says what is metered: server, dev-a, dev-b; a-up and b-link's two directions.
  const Result v = run_cli("validate " + (kData / "two-devices.json").string() + " " + kEnergy, "energy-validate");
  CHECK(v.out.find("energy: 3 hosts with wattage_per_state, 3 links with wattage_range\n") != std::string::npos);
}

TEST_CASE("energy: metrics.csv has the energy so far at each evaluation, and energy_to_target_j is the crossing's") {
  const fs::path out = fresh_dir("energy-target");
  const Result r = run_cli("run " + (kData / "two-devices.json").string() + " --quiet --out " + out.string() + " " +
                               kEnergy + "--set stop.target_accuracy=0.5 --set stop.rounds=200 --set eval.every_s=0.1",
                           "energy-target");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto summary = read_json(out / "summary.json");
  REQUIRE(summary["status"] == "target_reached");
  const double target_s = summary["time_to_target_s"], to_target_j = summary["energy"]["energy_to_target_j"];
  const auto rows = read_csv(out / "metrics.csv");
  REQUIRE(rows.size() >= 2);
  size_t at = 0;
  while (at < rows.size() && num(rows[at], "sim_time_s") < target_s) ++at;
  REQUIRE(at > 0);
  REQUIRE(at < rows.size());
  CHECK(num(rows[at], "energy_j") == to_target_j);  // the evaluation that reached the target
  CHECK(num(rows[at - 1], "energy_j") < to_target_j);
  CHECK(to_target_j <= num(rows.back(), "energy_j"));
  CHECK(num(rows.back(), "energy_j") == summary["energy"]["total_j"].get<double>());  // the final evaluation
  for (size_t i = 1; i < rows.size(); ++i)
    CHECK(num(rows[i], "devices_energy_j") > num(rows[i - 1], "devices_energy_j"));
}

TEST_CASE("energy: a malformed wattage is one line naming the file and line, exit 2") {
  const fs::path dir = fresh_dir("energy-bad-wattage");
  std::string xml = slurp(kData / "energy.xml");
  const std::string good = "value=\"1:2:10\"";
  xml.replace(xml.find(good), good.size(), "value=\"1:2:10W\"");
  std::ofstream(dir / "bad.xml") << xml;
  const Result r =
      run_cli("run " + (kData / "two-devices.json").string() + " --quiet --out " + (dir / "out").string() +
                  " --set platform=" + (dir / "bad.xml").string() + " --set 'devices=[\"dev-a\",\"dev-b\",\"dev-c\"]'",
              "energy-bad-wattage");
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(lines_of(r.err).size() == 1);
  CHECK(r.err.find("bad.xml:10: host \"dev-b\": wattage_per_state must be") != std::string::npos);
}

TEST_CASE("energy: the devices that took part are counted apart from the fleet, and the printed summary says so") {
  // One device a round for two rounds: at least one of the three never takes part.
  const fs::path out = fresh_dir("energy-participants");
  const Result r = run_cli("run " + (kData / "two-devices.json").string() + " --out " + out.string() + " " + kEnergy +
                               "--set training.compute=timing-only --set stop.rounds=2 "
                               "--set 'training.selection={\"kind\":\"random\",\"per_round\":1}'",
                           "energy-participants");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto e = read_json(out / "summary.json")["energy"];
  int64_t took_part = 0;
  double their_j = 0;
  for (const auto& d : read_csv(out / "devices.csv")) {
    if (count(d, "rounds_selected") == 0 && count(d, "steps") == 0) continue;
    took_part += 1;
    if (!cell(d, "energy_j").empty()) their_j += num(d, "energy_j");
  }
  CHECK(took_part >= 1);
  CHECK(took_part <= 2);
  CHECK(e["participants"] == took_part);
  CHECK(e["participants_j"].get<double>() == doctest::Approx(their_j).epsilon(1e-12));
  CHECK(e["participants_j"].get<double>() <= e["devices_j"].get<double>());
  CHECK(r.out.find("that took part") != std::string::npos);
}
