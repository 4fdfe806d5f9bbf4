// A real update's first step starts on the pool when its model is posted (sim/core/early_step.hpp): every
// output is byte-identical to the same run with every step started when its simulated compute does
// (EDGETRAIN_EARLY_STEPS=0), in each mode and topology where steps start early, with two workers.
#include <doctest/doctest.h>

#include <cstdlib>

#include "cli_helpers.hpp"

using namespace test;

namespace {

void check_same_as_late(const std::string& tag, const std::string& scenario, const std::string& sets) {
  const char* files[] = {"metrics.csv", "devices.csv", "staleness.csv", "links.csv", "rounds.csv", "summary.json"};
  std::vector<fs::path> outs;
  for (const char* early : {"1", "0"}) {
    setenv("EDGETRAIN_EARLY_STEPS", early, 1);
    const fs::path out = fresh_dir(tag + "-early" + early);
    const Result r = run_cli("run " + (kData / scenario).string() + " --quiet --threads 2 --out " + out.string() + " " + sets,
                             tag);
    unsetenv("EDGETRAIN_EARLY_STEPS");
    INFO(r.err);
    REQUIRE(r.status == 0);
    outs.push_back(out);
  }
  CHECK(read_json(outs[0] / "summary.json")["rounds"].get<int64_t>() > 0);
  for (const char* f : files) {
    if (!fs::exists(outs[1] / f)) continue;
    CAPTURE(f);
    std::string early = slurp(outs[0] / f), late = slurp(outs[1] / f);
    if (std::string(f) == "summary.json") {  // the wall time differs, nothing else
      auto a = nlohmann::json::parse(early), b = nlohmann::json::parse(late);
      a.erase("wall_time_s");
      b.erase("wall_time_s");
      early = a.dump();
      late = b.dump();
    }
    CHECK(!early.empty());
    CHECK(early == late);
  }
}

}  // namespace

TEST_CASE("early steps: sync rounds with momentum, a compressed downlink and top-k give the same bytes as late ones") {
  check_same_as_late("early-sync", "eight-devices.json",
                     "--set training.momentum=0.9 --set compression.kind=topk --set compression.ratio=0.1 "
                     "--set 'compression.downlink={\"kind\":\"topk\",\"ratio\":0.2}'");
}

TEST_CASE("early steps: async with staleness and local-sgd with several steps give the same bytes as late ones") {
  check_same_as_late("early-async", "eight-devices.json",
                     "--set training.mode=async --set training.max_staleness=6 --set stop.rounds=60");
  check_same_as_late("early-local", "eight-devices.json",
                     "--set training.mode=local-sgd --set training.local_steps=3 --set compression.kind=qsgd");
}

TEST_CASE("early steps: scaffold, ditto and dp noise give the same bytes as late ones") {
  check_same_as_late("early-scaffold", "eight-devices.json", "--set training.mode=local-sgd --set training.local_steps=2 --set strategy.kind=scaffold");
  check_same_as_late("early-ditto", "eight-devices.json", "--set training.mode=local-sgd --set training.local_steps=2 --set strategy.kind=ditto");
  check_same_as_late("early-dp", "eight-devices.json",
                     "--set 'privacy.dp={\"placement\":\"local\",\"order\":\"clip_noise_compress\"}'");
}

TEST_CASE("early steps: gossip and hierarchical topologies give the same bytes as late ones") {
  check_same_as_late("early-gossip", "gossip4.json", "");
  check_same_as_late("early-hier", "hier.json", "");
}
