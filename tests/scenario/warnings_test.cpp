// Warnings about valid scenarios known to go wrong (scenario::warnings): each trap named by its
// JSON path with why and what to do, word for word, and none for the settings that avoid it.
#include "scenario/warnings.hpp"

#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

std::vector<std::string> warnings_of(const std::vector<std::string>& sets, json doc = minimal_doc()) {
  TempDir dir;
  return warnings(parse_in(dir, doc, sets));
}

// The warnings whose JSON path is `path`.
std::vector<std::string> about(const std::vector<std::string>& all, const std::string& path) {
  std::vector<std::string> out;
  for (const std::string& w : all) {
    if (w.rfind(path + ": ", 0) == 0) out.push_back(w);
  }
  return out;
}

const std::string kAsyncMomentum =
    "training.momentum: 0.9 with training.mode async: heavy-ball momentum on stale updates amplifies their staleness "
    "and tends to diverge (asynchrony already acts as momentum: Mitliagkas et al. 2016, \"Asynchrony begets "
    "momentum\"; see docs/explanation/async.md), set training.momentum to 0";

}  // namespace

TEST_CASE("warnings: none for a plain synchronous scenario, nor for momentum in synchronous rounds") {
  CHECK(warnings_of({}).empty());
  CHECK(warnings_of({"training.momentum=0.9"}).empty());
  CHECK(warnings_of({"training.mode=local-sgd", "training.momentum=0.9"}).empty());  // server momentum, in rounds
  CHECK(warnings_of({"training.mode=async", "stop.rounds=null", "stop.sim_time_s=10"}).empty());
}

TEST_CASE("warnings: heavy-ball momentum with asynchronous staleness") {
  CHECK(about(warnings_of({"training.mode=async", "training.momentum=0.9"}), "training.momentum") ==
        std::vector<std::string>{kAsyncMomentum});
  const auto local =
      about(warnings_of({"training.mode=local-sgd", "training.aggregation=async", "training.momentum=0.5"}),
            "training.momentum");
  REQUIRE(local.size() == 1);
  CHECK(local[0].rfind("training.momentum: 0.5 with training.mode local-sgd with training.aggregation async: ", 0) ==
        0);
  // Nothing stale is ever applied: with max_staleness 0, or with a single device.
  CHECK(about(warnings_of({"training.mode=async", "training.momentum=0.9", "training.max_staleness=0"}),
              "training.momentum")
            .empty());
  CHECK(about(warnings_of({"training.mode=async", "training.momentum=0.9", "devices=[\"pi-1\"]"}), "training.momentum")
            .empty());
}

TEST_CASE("warnings: momentum with error feedback") {
  const auto topk = warnings_of({"compression.kind=topk", "compression.error_feedback=true", "training.momentum=0.9"});
  CHECK(topk == std::vector<std::string>{
                    "compression.error_feedback: error feedback with training.momentum 0.9: the residual each device "
                    "re-injects reaches the server's momentum late and is amplified by it, which destabilises "
                    "training (Lin et al. 2018, Deep Gradient Compression, apply momentum before compressing; "
                    "Karimireddy et al. 2019, EF-SGD, analyse it without momentum; see docs/how-to/compression.md), "
                    "set training.momentum to 0 or compression.error_feedback to false"});
  // signsgd has error feedback by default: the message says so.
  const auto sign = warnings_of({"compression.kind=signsgd", "training.momentum=0.9"});
  REQUIRE(sign.size() == 1);
  CHECK(sign[0].rfind(
            "compression.error_feedback: error feedback (the default for signsgd) with training.momentum 0.9: ", 0) ==
        0);
  CHECK(warnings_of({"compression.kind=topk", "compression.error_feedback=true"}).empty());  // no momentum
  CHECK(warnings_of({"compression.kind=topk", "training.momentum=0.9"}).empty());            // no error feedback
}

TEST_CASE("warnings: stop.rounds counts pushes in asynchronous modes") {
  CHECK(about(warnings_of({"training.mode=async", "stop.rounds=25", "devices=[\"a\",\"b\",\"c\"]"}), "stop.rounds") ==
        std::vector<std::string>{
            "stop.rounds: 25 counts applied pushes in training.mode async, each from one device (about 8.3 per device "
            "with 3 devices), not rounds of every device, set it to 75 for as many updates as 25 synchronous rounds, "
            "or stop on stop.sim_time_s"});
  CHECK(about(warnings_of({"training.mode=local-sgd", "training.aggregation=async"}), "stop.rounds").size() == 1);
  CHECK(about(warnings_of(
                  {"training.mode=async", "training.buffer_size=2", "stop.rounds=25", "devices=[\"a\",\"b\",\"c\"]"}),
              "stop.rounds") ==
        std::vector<std::string>{
            "stop.rounds: 25 counts model versions in training.mode async, each the average of 2 pushes "
            "(training.buffer_size) (about 16.7 per device with 3 devices), not rounds of every device, set it to 38 "
            "for as many updates as 25 synchronous rounds, or stop on stop.sim_time_s"});
  CHECK(about(warnings_of({"training.mode=async", "training.buffer_size=3", "devices=[\"a\",\"b\",\"c\"]"}),
              "stop.rounds")
            .empty());  // a version averages as many pushes as a round
  CHECK(about(warnings_of({"training.mode=async", "devices=[\"a\"]"}), "stop.rounds").empty());  // pushes are rounds
  CHECK(about(warnings_of({"training.mode=scadles", "stream.rate=S1"}), "stop.rounds").empty());
}

TEST_CASE("warnings: biased compressors without error feedback, downlink error feedback") {
  CHECK(warnings_of({"compression.kind=onebit", "compression.error_feedback=false"}) ==
        std::vector<std::string>{
            "compression.error_feedback: false with compression.kind onebit: this biased compressor then loses what it "
            "leaves out for good and may not converge (Karimireddy et al. 2019, EF-SGD), set "
            "compression.error_feedback to true (its default for onebit)"});
  CHECK(warnings_of({"compression.kind=topk"}).empty());
  CHECK(warnings_of({"compression.downlink.kind=topk", "compression.downlink.error_feedback=true"}) ==
        std::vector<std::string>{"compression.downlink.error_feedback: has no effect: each downlink delta is taken "
                                 "against the device's copy, so it already carries what earlier deltas left out, "
                                 "remove it"});
  // Its default for signsgd: not the user's doing.
  CHECK(warnings_of({"compression.downlink.kind=signsgd"}).empty());
}

TEST_CASE("warnings: a max_staleness below the fleet's usual staleness") {
  const std::vector<std::string> fleet = {"training.mode=async", "stop.rounds=null", "stop.sim_time_s=10",
                                          "devices=[\"a\",\"b\",\"c\",\"d\"]"};
  auto with = [&](const std::string& set) {
    auto sets = fleet;
    sets.push_back(set);
    return warnings_of(sets);
  };
  CHECK(with("training.max_staleness=2") ==
        std::vector<std::string>{"training.max_staleness: 2 with 4 devices may drop most pushes: a push is on average "
                                 "about 3 updates stale (one from each other device since its pull), set it to at "
                                 "least 3 or to null"});
  CHECK(with("training.max_staleness=3").empty());
  CHECK(with("training.mode=sync").empty());  // ignored outside the asynchronous modes
}

TEST_CASE("warnings: devices sharing a host in an asynchronous mode without start jitter") {
  const std::vector<std::string> base = {"training.mode=async", "stop.rounds=null", "stop.sim_time_s=10",
                                         "devices=[{\"host\":\"pi-1\",\"name\":\"a\"},{\"host\":\"pi-2\",\"name\":"
                                         "\"b\"},{\"host\":\"pi-1\",\"name\":\"c\"}]"};
  CHECK(warnings_of(base) ==
        std::vector<std::string>{"training.start_jitter_s: 0 with devices a and c on one host (pi-1): devices alike "
                                 "started together push at the same instants for the whole run, set "
                                 "training.start_jitter_s to about one step's time"});
  auto jittered = base;
  jittered.push_back("training.start_jitter_s=0.5");
  CHECK(warnings_of(jittered).empty());
}

TEST_CASE("warnings: a hierarchy that compresses the device hop but sends dense deltas up the site uplink") {
  TempDir dir;
  Scenario s = parse_in(dir, minimal_doc(), {"compression.kind=topk"});
  CHECK(about(warnings(s), "topology.site_compression").empty());  // flat: there is no site uplink
  s.topology.kind = "hierarchical";  // typed: the sites themselves need a platform (tests/sim checks the CLI)
  CHECK(about(warnings(s), "topology.site_compression") ==
        std::vector<std::string>{
            "topology.site_compression: null (dense fp32 deltas) while compression.kind topk compresses only the "
            "device -> site hop: each site's delta crosses its uplink to the cloud dense (and the cloud -> site model "
            "is always dense; see docs/explanation/hierarchical.md), set topology.site_compression, e.g. to the "
            "same keys as compression"});
  s.topology.site_compression.kind = "topk";
  CHECK(about(warnings(s), "topology.site_compression").empty());
  s.topology.site_compression.kind = "none";
  s.compression.uplink.kind = "none";  // nothing compressed: nothing to warn about
  CHECK(about(warnings(s), "topology.site_compression").empty());
}

TEST_CASE("warnings: distributed DP noise protects the sum, not each update the aggregator sees") {
  const std::vector<std::string> four = {"devices=[\"a\",\"b\",\"c\",\"d\"]"};
  auto with = [&](std::vector<std::string> sets) {
    sets.insert(sets.begin(), four.begin(), four.end());
    return about(warnings_of(sets), "privacy.dp.placement");
  };
  // K = 4 devices a round: each adds 2 x 0.5 / sqrt(4) = 0.5.
  CHECK(with({"privacy.dp={\"placement\":\"distributed\",\"noise_multiplier\":2,\"clip\":0.5}"}) ==
        std::vector<std::string>{
            "privacy.dp.placement: distributed: each device adds only its share of the noise, standard deviation "
            "noise_multiplier x clip / sqrt(K) = 0.5 with K = 4 updates a round, so whoever sees a single update (the "
            "aggregator) sees it with that share alone; the epsilon reported holds against whoever sees only the sum: "
            "add privacy.secure_aggregation, set placement to central to trust the aggregator, or local for noise "
            "that protects each update on its own"});
  // K from the selection: 1 of 4 a round adds the whole noise, nothing to say; 2 of 4 share it.
  const std::string one = "training.selection={\"kind\":\"random\",\"per_round\":1}";
  CHECK(with({"privacy.dp={\"placement\":\"distributed\"}", one}).empty());
  const auto two = with({"privacy.dp={\"placement\":\"distributed\"}", "training.selection.kind=random",
                         "training.selection.per_round=2"});
  REQUIRE(two.size() == 1);
  CHECK(two[0].find("= 0.7071067811865475 with K = 2 updates a round") != std::string::npos);
  CHECK(with({"privacy.dp={\"placement\":\"central\"}"}).empty());
  // Secure aggregation hides each update: the share is all anyone sees within the sum.
  CHECK(with({"privacy.dp={\"placement\":\"distributed\"}", "privacy.secure_aggregation={\"kind\":\"secagg\"}"}).empty());
  CHECK(with({"privacy.dp={\"placement\":\"local\"}"}).empty());
  CHECK(with({}).empty());
}

TEST_CASE("warnings: a DP delta of at least 1 / the number of devices") {
  // Two devices: 1 / n = 0.5.
  CHECK(about(warnings_of({"privacy.dp={\"delta\":0.5}"}), "privacy.dp.delta") ==
        std::vector<std::string>{
            "privacy.dp.delta: 0.5 is at least 1 / 2 (the devices): an (epsilon, delta) guarantee with delta >= 1 / n "
            "allows publishing a device's update outright (each device with probability delta), whatever epsilon "
            "says (Dwork and Roth 2014, 2.3), set it well below 1 / n, e.g. 0.01"});
  CHECK(about(warnings_of({"privacy.dp={\"delta\":0.49}"}), "privacy.dp.delta").empty());
  CHECK(warnings_of({"privacy.dp={}"}).empty());  // 1e-5 with two devices; central: no warning at all
}

TEST_CASE("warnings: a compressor under secure aggregation keeps its error and saves no uplink bytes") {
  const std::string secagg = "privacy.secure_aggregation={\"kind\":\"secagg\",\"field_bits\":16}";
  auto with = [](const std::vector<std::string>& sets) { return about(warnings_of(sets), "compression.kind"); };
  CHECK(with({secagg, "compression.kind=topk", "compression.ratio=0.01"}) ==
        std::vector<std::string>{
            "compression.kind: topk with privacy.secure_aggregation saves no uplink bytes: each device sends its "
            "update as the masked input, a dense vector of one field element of field_bits (16) bits per model "
            "parameter, whatever the compressor kept; its error (and bias) stay, its savings do not (see "
            "docs/explanation/secure-aggregation.md), set compression.kind to none, and lower "
            "privacy.secure_aggregation.field_bits to shrink the upload"});
  // Every kind but none: a quantiser's values, too, go to the field as decoded floats.
  for (const char* kind : {"fp16", "qsgd", "signsgd", "powersgd"}) {
    CAPTURE(kind);
    const auto w = with({"privacy.secure_aggregation={}", std::string("compression.kind=") + kind});
    REQUIRE(w.size() == 1);
    const std::string opening = std::string("compression.kind: ") + kind + " with privacy.secure_aggregation saves";
    CHECK(w[0].rfind(opening + " no uplink bytes: ", 0) == 0);
    CHECK(w[0].find("field_bits (32)") != std::string::npos);  // the default
  }
  // Without compression, or without secure aggregation: nothing; a compressed downlink is not concerned.
  CHECK(warnings_of({secagg}).empty());
  CHECK(with({"compression.kind=topk", "compression.ratio=0.01"}).empty());
  CHECK(warnings_of({secagg, "compression.downlink={\"kind\":\"topk\",\"ratio\":0.1}"}).empty());
}
