// Decentralised gossip (topology.kind gossip): the graphs and their Metropolis-Hastings weights,
// exact averaging on a complete graph equal to synchronous SGD through a server, the bytes and
// the iteration time of a ring by hand, and one-line refusals of what gossip cannot run.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "cli_helpers.hpp"
#include "sim/topology/gossip_graph.hpp"

using namespace test;
using edgetrain::sim::GossipGraph;
using edgetrain::sim::GossipGraphError;
using edgetrain::sim::make_gossip_graph;

namespace {

const std::vector<std::string> kOneSite(16, "site");

// Every row of W sums to 1 and W is symmetric (doubly stochastic).
void check_metropolis(const GossipGraph& g) {
  for (size_t i = 0; i < g.size(); ++i) {
    double row = g.weight(i, i);
    CHECK(g.weight(i, i) >= 0);
    for (size_t j : g.neighbours[i]) {
      row += g.weight(i, j);
      CHECK(g.weight(i, j) == g.weight(j, i));
    }
    CHECK(row == doctest::Approx(1.0).epsilon(1e-12));
  }
}

fs::path run_gossip4(const std::string& tag, const std::string& sets, bool timing_only) {
  return run_ok("gossip4.json", (timing_only ? "--set training.compute=timing-only " : "") + sets, tag);
}

}  // namespace

TEST_CASE("gossip: graphs, Metropolis-Hastings weights, random-k seeded and connected") {
  const GossipGraph ring = make_gossip_graph("ring", 5, 0, 1, kOneSite);
  CHECK(ring.neighbours[0] == std::vector<size_t>{1, 4});
  CHECK(ring.weight(0, 1) == doctest::Approx(1.0 / 3));
  check_metropolis(ring);
  const GossipGraph complete = make_gossip_graph("complete", 6, 0, 1, kOneSite);
  for (size_t j = 0; j < 6; ++j) CHECK(complete.weight(2, j) == doctest::Approx(1.0 / 6).epsilon(1e-15));
  // A torus of 12 is 3 x 4: four neighbours each; 2 x 3 folds its short side to one neighbour.
  CHECK(edgetrain::sim::torus_shape(12) == std::pair<size_t, size_t>{3, 4});
  const GossipGraph torus = make_gossip_graph("torus", 12, 0, 1, kOneSite);
  for (const auto& n : torus.neighbours) CHECK(n.size() == 4);
  check_metropolis(torus);
  CHECK(make_gossip_graph("torus", 6, 0, 1, kOneSite).neighbours[0] == std::vector<size_t>{1, 2, 3});
  CHECK_THROWS_WITH_AS(make_gossip_graph("torus", 7, 0, 1, kOneSite),
                       doctest::Contains("topology.graph: a torus of 7 devices would be 1 x 7"), GossipGraphError);

  const GossipGraph a = make_gossip_graph("random-k", 16, 2, 9, kOneSite);
  CHECK(a.neighbours == make_gossip_graph("random-k", 16, 2, 9, kOneSite).neighbours);  // seeded
  CHECK(a.neighbours != make_gossip_graph("random-k", 16, 2, 10, kOneSite).neighbours);
  CHECK(a.connected());
  for (const auto& n : a.neighbours) CHECK(n.size() >= 2);
  check_metropolis(a);
  CHECK_THROWS_WITH_AS(make_gossip_graph("random-k", 4, 4, 1, kOneSite),
                       "topology.degree: 4 is more than the 3 other devices", GossipGraphError);

  // Sites: all linked within a site, the sites chained by their first devices.
  const GossipGraph sites = make_gossip_graph("platform-neighbours", 5, 0, 1, {"x", "y", "x", "y", "z"});
  CHECK(sites.neighbours[0] == std::vector<size_t>{1, 2});
  CHECK(sites.neighbours[1] == std::vector<size_t>{0, 3, 4});
  CHECK(sites.connected());
}

TEST_CASE("gossip: a complete graph with exact averaging is synchronous SGD through a server") {
  // Real training, momentum 0: x_i - lr g_i averaged with weights 1/n is x - lr mean(g). Fast links
  // (what-ifs), so that an evaluation nearly always falls while the devices compute, between two
  // iterations, when every peer holds the average.
  std::string sets = "--set eval.every_s=0.0093";
  for (int i = 1; i <= 4; ++i) {
    const std::string link = " --set platform.links.g" + std::to_string(i);
    sets += link + ".bandwidth=1GBps" + link + ".latency=10us";
  }
  const fs::path gossip = run_gossip4("gossip-complete", sets + " --set topology.graph=complete", false);
  const fs::path flat = run_gossip4("gossip-flat", sets + " --set topology.kind=flat", false);
  const auto g = read_csv(gossip / "metrics.csv"), f = read_csv(flat / "metrics.csv");
  // Compared at equal rounds.
  size_t compared = 0;
  for (const auto& gr : g) {
    for (const auto& fr : f) {
      if (gr.at("round") != fr.at("round")) continue;
      CAPTURE(gr.at("round"));
      CHECK(std::fabs(num(gr, "test_accuracy") - num(fr, "test_accuracy")) <= 1e-5);
      CHECK(num(gr, "test_loss") == doctest::Approx(num(fr, "test_loss")).epsilon(1e-4));
      CHECK(num(gr, "model_spread") < 1e-5);  // exact averaging: the models agree to float rounding
      ++compared;
      break;
    }
  }
  CHECK(compared >= 6);
  const auto gs = read_json(gossip / "summary.json"), fs_ = read_json(flat / "summary.json");
  CHECK(gs["rounds"] == 12);
  CHECK(gs["topology"] == "gossip");
  CHECK(std::fabs(gs["final_test_accuracy"].get<double>() - fs_["final_test_accuracy"].get<double>()) <= 1e-5);
  // The device actor is unchanged: the same steps, samples and compute time per device.
  const auto gd = read_csv(gossip / "devices.csv"), fd = read_csv(flat / "devices.csv");
  REQUIRE(gd.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(gd[i].at("steps") == fd[i].at("steps"));
    CHECK(gd[i].at("samples_trained") == fd[i].at("samples_trained"));
    CHECK(num(gd[i], "compute_s") == doctest::Approx(num(fd[i], "compute_s")).epsilon(1e-12));
  }
}

TEST_CASE("gossip: a ring of 4, timing-only: bytes per link and the iteration time by hand") {
  // The loopback (device <-> its peer on the same host) pinned so that its time is known.
  const fs::path out = run_gossip4(
      "gossip-ring", "--cfg=network/loopback-bw:1e9 --cfg=network/loopback-lat:0.0001 --set stop.rounds=5", true);
  const auto summary = read_json(out / "summary.json");
  REQUIRE(summary["rounds"] == 5);
  const auto params = summary["model_params"].get<int64_t>();
  const double message = 4.0 * static_cast<double>(params) + 64;  // dense fp32 model + header
  // Each device sends its model to its 2 neighbours and receives theirs, every iteration: its
  // access link carries 2 models each way per iteration.
  for (const auto& l : read_csv(out / "links.csv")) {
    CAPTURE(l.at("link"));
    if (l.at("link").rfind("g", 0) != 0) continue;
    CHECK(num(l, "bytes") == 2 * message * 5);
  }
  // One iteration, every device alike (speed 10 Mf, links 1 MBps and 1 ms each way, CM02):
  const double speed = 1e7;
  const double loopback = 1e-4 + message / 1e9;  // model down, then the update up
  const double compute = 8 * summary["model_step_flops_per_sample"].get<double>() / speed;
  const double adapt = 6.0 * static_cast<double>(params) / speed;        // the update applied (params x (1 + 5))
  const double exchange = 2e-3 + message / (1e6 / 2);                    // two models share the access link
  const double combine = 2.0 * static_cast<double>(params) * 3 / speed;  // own + 2 neighbours' models
  const double iteration = 2 * loopback + compute + adapt + exchange + combine;
  CHECK(summary["sim_time_s"].get<double>() == doctest::Approx(5 * iteration).epsilon(1e-9));
  // An iteration is a round of the run: round_s has five of the same length.
  CHECK(summary["round_s"]["count"] == 5);
  for (const char* figure : {"mean", "median", "p95", "max"})
    CHECK(summary["round_s"][figure].get<double>() == doctest::Approx(iteration).epsilon(1e-9));
  CHECK(summary["bytes_to_server"] == 0);  // no server traffic
  // devices.csv: a device's bytes are its own uploads and downloads plus the exchanges it sent and received;
  // its comm_s its own transfers (the loopback both ways) and the exchanges over its access link, which the
  // peer on its host runs while the device waits for its next model: a communication-bound device.
  for (const auto& d : read_csv(out / "devices.csv")) {
    CHECK(num(d, "bytes_up") == 5 * (message + 2 * message));
    CHECK(num(d, "bytes_down") == 5 * (message + 2 * message));
    CHECK(num(d, "comm_s") == doctest::Approx(5 * (2 * loopback + exchange)).epsilon(1e-9));
    CHECK(num(d, "compute_s") == doctest::Approx(5 * compute).epsilon(1e-9));
    CHECK(num(d, "wait_s") == doctest::Approx(5 * (adapt + combine)).epsilon(1e-9));
    CHECK(d.at("bound") == "communication");
  }
  CHECK(summary["bottleneck"]["devices"]["communication"] == 4);
  // SimGrid gives every transfer within one host the loopback's whole bandwidth: links.csv says so.
  for (const auto& l : read_csv(out / "links.csv")) {
    CAPTURE(l.at("link"));
    CHECK(l.at("sharing") == (l.at("link") == "__loopback__" ? "fatpipe" : "shared"));
  }
}

TEST_CASE("gossip: a missing route and what gossip does not run are one line, exit 2, validate shows the graph") {
  const std::string run = "run " + (kData / "gossip4.json").string() + " --quiet --set training.compute=timing-only ";
  const Result route = run_cli(run + "--set platform=" + (kData / "gossip4-ring.xml").string() +
                                   " --set topology.graph=complete --out " + fresh_dir("gossip-noroute").string(),
                               "gossip-noroute");
  CHECK(route.status == 2);
  CHECK(
      lines_of(route.err) ==
      std::vector<std::string>{"edgetrain: topology.graph: devices \"g1\" (host g1) and \"g3\" (host g3) are complete "
                               "neighbours but the platform has no route between them both ways"});
  const Result async =
      run_cli(run + "--set training.mode=async --out " + fresh_dir("gossip-async").string(), "gossip-async");
  CHECK(async.status == 2);
  CHECK(lines_of(async.err).size() == 1);
  CHECK(async.err.find("topology.kind: gossip does not support updates applied on arrival") != std::string::npos);
  // Every device of gossip4.xml is in one netzone: platform-neighbours links them all (6 edges).
  const Result sites = run_cli("validate " + (kData / "gossip4.json").string() +
                                   " --set training.compute=timing-only --set topology.graph=platform-neighbours",
                               "gossip-sites");
  CHECK(sites.status == 0);
  CHECK(sites.out.find("topology: gossip over a platform-neighbours graph of 6 edges") != std::string::npos);
}
