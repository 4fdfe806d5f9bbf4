// --threads changes wall time only: the real steps of devices that overlap in simulated time run
// on a pool of workers, and every output is byte-identical for 1, 2 and 4 workers, in every mode,
// with streams, data injection, compression (both directions), faults and secure aggregation. Also:
// --threads is validated, and the seam's typed messages refuse the wrong type.
#include <doctest/doctest.h>

#include "cli_helpers.hpp"
#include "sim/core/messages.hpp"

using namespace test;

namespace {

// Runs tests/sim/data/eight-devices.json with `sets` at each thread count and compares the outputs.
void check_thread_independence(const std::string& tag, const std::string& sets) {
  const char* files[] = {"metrics.csv", "devices.csv", "staleness.csv", "buffers.csv", "links.csv", "rounds.csv"};
  std::vector<fs::path> outs;
  for (int threads : {1, 2, 4}) {
    const fs::path out = fresh_dir(tag + "-t" + std::to_string(threads));
    const Result r = run_cli("run " + (kData / "eight-devices.json").string() + " --quiet --out " + out.string() +
                                 " --threads " + std::to_string(threads) + " " + sets,
                             tag);
    INFO(r.err);
    REQUIRE(r.status == 0);
    outs.push_back(out);
  }
  CHECK(read_json(outs[0] / "summary.json")["rounds"].get<int64_t>() > 0);
  for (const char* f : files) {
    CAPTURE(f);
    const std::string one = slurp(outs[0] / f);
    CHECK(!one.empty());
    CHECK(one == slurp(outs[1] / f));
    CHECK(one == slurp(outs[2] / f));
  }
}

}  // namespace

TEST_CASE("threads: sync rounds with momentum and a compressed downlink give the same bytes for 1, 2 and 4 workers") {
  check_thread_independence("threads-sync",
                            "--set training.momentum=0.9 --set compression.kind=powersgd "
                            "--set 'compression.downlink={\"kind\":\"topk\",\"ratio\":0.2}'");
}

TEST_CASE("threads: scadles with streams, injection and adaptive top-k give the same bytes") {
  check_thread_independence(
      "threads-scadles",
      "--set training.mode=scadles --set 'stream={\"rate\":{\"dist\":\"uniform\",\"mean\":40,\"spread\":30},"
      "\"arrivals\":\"poisson\",\"buffer\":{\"policy\":\"persistence\"}}' "
      "--set 'training.injection={\"alpha\":0.25,\"beta\":0.25}' --set training.batch_min=8 "
      "--set compression.kind=topk --set compression.ratio=0.1 "
      "--set 'compression.adaptive={\"delta\":0.5}' --set stop.sim_time_s=2 --set stop.rounds=null");
}

TEST_CASE("threads: async with top-k, error feedback and the adacomp rule give the same bytes") {
  check_thread_independence("threads-async",
                            "--set training.mode=async --set training.staleness_lr=adacomp "
                            "--set training.max_staleness=6 --set compression.kind=topk --set compression.ratio=0.05 "
                            "--set compression.error_feedback=true --set stop.rounds=60");
}

TEST_CASE("threads: local-sgd with churn and round timeouts gives the same bytes") {
  check_thread_independence(
      "threads-local-sgd",
      "--set training.mode=local-sgd --set training.local_steps=3 "
      "--set 'faults={\"devices\":[{\"device\":\"*\",\"mtbf_s\":0.05,\"mttr_s\":0.02}]}' "
      "--set training.round_timeout_s=0.05 --set compression.kind=qsgd --set stop.rounds=null --set stop.sim_time_s=1");
}

TEST_CASE("threads: async local-sgd with random-k under churn gives the same bytes") {
  check_thread_independence(
      "threads-local-async",
      "--set training.mode=local-sgd --set training.aggregation=async --set training.local_steps=2 "
      "--set 'faults={\"devices\":[{\"device\":\"*\",\"mtbf_s\":0.1,\"mttr_s\":0.02}]}' "
      "--set compression.kind=randomk --set compression.ratio=0.1 --set stop.rounds=40");
}

TEST_CASE("threads: secure aggregation (secagg+) with churn and phase timeouts gives the same bytes") {
  // Masks, shares and the unmasked sum come from seeds of (seed, round, device), never from a worker.
  check_thread_independence(
      "threads-secagg",
      "--set 'privacy.secure_aggregation={\"kind\":\"secagg+\",\"neighbours\":4,\"phase_timeout_s\":4}' "
      "--set 'faults={\"devices\":[{\"device\":\"*\",\"mtbf_s\":20,\"mttr_s\":4}]}' "
      "--set training.round_timeout_s=20 --set stop.rounds=null --set stop.sim_time_s=45");
}

TEST_CASE("threads: --threads must be a whole number from 1 to 256") {
  for (const char* bad : {"0", "-1", "two", "257", "1.5", ""}) {
    CAPTURE(bad);
    const Result r =
        run_cli("run " + (kData / "eight-devices.json").string() + " --threads '" + bad + "'", "threads-bad");
    CHECK(r.status == 2);
    CHECK(r.err.rfind("edgetrain: --threads: expected a whole number from 1 to 256", 0) == 0);  // then the usage
  }
}

TEST_CASE("messages: a receive of the wrong type is a ProtocolError naming both types") {
  using namespace edgetrain::sim;
  auto pull = std::make_unique<PullRequest>();
  CHECK_THROWS_WITH_AS(expect<UpdateMessage>(std::move(pull), "aggregator on cloud"),
                       "aggregator on cloud expected a update message, got a pull message", ProtocolError);
  auto update = std::make_unique<UpdateMessage>();
  update->device = 3;
  const auto same = expect<UpdateMessage>(std::move(update), "aggregator");
  CHECK(same->device == 3);
  CHECK_THROWS_AS(expect<ModelMessage>(nullptr, "device d1"), ProtocolError);
}
