// Whole runs with personalisation (strategy.kind fedper, fedrep, fedbn, ditto) on
// tests/sim/data/eight-devices.json in mode local-sgd: only the shared part travels, to the byte, both
// ways and compressed alike, timing-only as in a real run; each device's personalised accuracy is in
// metrics.csv and summary.json; Ditto trains the very global model FedAvg does, at twice the compute;
// FedBN keeps a TorchScript model's BatchNorm layers on the devices; --threads changes nothing; and what
// does not apply is refused in one line, exit 2.
#include <doctest/doctest.h>

#include <string>

#include "../export_model.hpp"
#include "cli_helpers.hpp"

using namespace test;

namespace {

// mlp 64-32-4 of eight-devices.json: fc1 (64 x 32 + 32) is shared, fc2 (32 x 4 + 4) the head.
constexpr double kShared = 64 * 32 + 32, kHead = 32 * 4 + 4;
constexpr double kHeader = 64;
constexpr int kDevices = 8;

const std::string kLocal = "--set training.mode=local-sgd ";

fs::path run8(const std::string& tag, int rounds, const std::string& sets = "") {
  return run_ok("eight-devices.json", kLocal + "--set stop.rounds=" + std::to_string(rounds) + " " + sets,
                "personal-" + tag);
}

nlohmann::json summary(const fs::path& out) { return read_json(out / "summary.json"); }

void check_refused(const std::string& sets, const std::string& message, const std::string& tag) {
  run_refused("eight-devices.json", kLocal + sets, message, "personal-err-" + tag);
}

}  // namespace

TEST_CASE("personalisation run: fedper sends the shared layers alone, both ways, and reports personalised accuracy") {
  constexpr int kRounds = 10;
  const fs::path fedavg = run8("fedper-ref", kRounds), fedper = run8("fedper", kRounds, "--set strategy.kind=fedper");
  const auto a = summary(fedavg), p = summary(fedper);
  const double messages = kRounds * kDevices;
  CHECK(p["bytes_up"].get<double>() == messages * (kHeader + 4 * kShared));
  CHECK(p["bytes_down"].get<double>() == a["bytes_down"].get<double>() - messages * 4 * kHead);
  CHECK(a["bytes_up"].get<double>() - p["bytes_up"].get<double>() == messages * 4 * kHead);
  CHECK(p["compression_ratio"] == 1.0);  // uncompressed: what travels is measured against its own dense size
  // Each device's personalised model: its own head on the global body, on test samples of its classes.
  const auto metrics = read_csv(fedper / "metrics.csv");
  REQUIRE(metrics.size() >= 2);
  const auto& last = metrics.back();
  CHECK(num(last, "personal_devices") == kDevices);
  CHECK(num(last, "personal_accuracy_p10") <= num(last, "personal_accuracy_mean"));
  CHECK(num(last, "personal_accuracy_mean") > 0.8);
  CHECK(metrics.front().at("personal_accuracy_mean").empty());  // before any device trained
  CHECK(p["personalisation"]["final_accuracy_mean"].get<double>() == num(last, "personal_accuracy_mean"));
  CHECK(p["personalisation"]["devices"] == kDevices);
  // FedAvg has none of it, unless asked: then its global model is evaluated on each device's samples, and
  // trains as it did.
  CHECK(lines_of(slurp(fedavg / "metrics.csv")).at(0).find("personal") == std::string::npos);
  CHECK_FALSE(a.contains("personalisation"));
  const fs::path baseline = run8("fedavg-personal", kRounds, "--set strategy.personal_test_samples=50");
  const auto b = read_csv(baseline / "metrics.csv"), f = read_csv(fedavg / "metrics.csv");
  REQUIRE(b.size() == f.size());
  CHECK(b.back().at("test_accuracy") == f.back().at("test_accuracy"));
  CHECK(num(b.back(), "personal_devices") == kDevices);
  CHECK(summary(baseline)["personalisation"]["final_accuracy_mean"].get<double>() > 0.5);
  // A device keeps its own model beside FedAvg's two working vectors.
  CHECK(num(read_csv(fedper / "devices.csv")[0], "model_memory_bytes") == 3 * 4 * (kShared + kHead));
}

TEST_CASE("personalisation run: compressed, timing-only and validate charge the shared part as the real run does") {
  constexpr int kRounds = 8;
  const std::string sets = "--set strategy.kind=fedrep --set compression.kind=topk-10% ";
  const fs::path real = run8("fedrep-topk", kRounds, sets);
  const fs::path timing = run8("fedrep-topk-timing", kRounds, sets + "--set training.compute=timing-only");
  const auto r = summary(real), t = summary(timing);
  CHECK(t["bytes_up"] == r["bytes_up"]);
  CHECK(t["bytes_down"] == r["bytes_down"]);
  CHECK(t["sim_time_s"] == r["sim_time_s"]);
  // top-k 10% of the shared layer alone: an index and a value (4 bytes each) for 10% of fc1's weights and of
  // its biases.
  const double kept = static_cast<int>(0.1 * 64 * 32) + static_cast<int>(0.1 * 32);
  const double per_message = r["bytes_up"].get<double>() / (kRounds * kDevices);
  CHECK(per_message == kHeader + 8 * kept);
  const Result v = run_cli("validate " + (kData / "eight-devices.json").string() + " " + kLocal + sets, "personal-validate");
  REQUIRE(v.status == 0);
  CHECK(v.out.find("personalisation: 2080 of the model's 2212 parameters travel") != std::string::npos);
  CHECK(v.out.find("uplink " + std::to_string(static_cast<int64_t>(per_message)) + " bytes (") != std::string::npos);
  // FedRep trains the head, then the body: not FedPer's joint steps.
  const fs::path fedper = run8("fedper-topk", kRounds, "--set strategy.kind=fedper --set compression.kind=topk-10%");
  CHECK(slurp(fedper / "metrics.csv") != slurp(real / "metrics.csv"));
  CHECK(summary(real)["personalisation"]["final_accuracy_mean"].get<double>() > 0.6);
}

TEST_CASE("personalisation run: ditto's global model is fedavg's, its personal steps cost a second pass") {
  constexpr int kRounds = 8;
  const fs::path fedavg = run8("ditto-ref", kRounds), ditto = run8("ditto", kRounds, "--set strategy.kind=ditto");
  const auto a = summary(fedavg), d = summary(ditto);
  CHECK(d["final_test_accuracy"] == a["final_test_accuracy"]);
  CHECK(d["bytes_up"] == a["bytes_up"]);
  const auto da = read_csv(fedavg / "devices.csv"), dd = read_csv(ditto / "devices.csv");
  for (size_t i = 0; i < da.size(); ++i) CHECK(num(dd[i], "compute_s") == doctest::Approx(2 * num(da[i], "compute_s")).epsilon(1e-12));
  CHECK(d["sim_time_s"].get<double>() > a["sim_time_s"].get<double>());
  CHECK(d["personalisation"]["final_accuracy_mean"].get<double>() > 0.8);
  // lambda 0 leaves each personal model to its own data: another personalised accuracy, the same global model.
  const fs::path alone = run8("ditto-0", kRounds, "--set strategy.kind=ditto --set strategy.lambda=0");
  CHECK(summary(alone)["final_test_accuracy"] == a["final_test_accuracy"]);
  CHECK(summary(alone)["personalisation"] != d["personalisation"]);
  // Same seed, any thread count: the same bytes.
  const fs::path one = run8("ditto-t1", 4, "--set strategy.kind=fedper --threads 1");
  const fs::path three = run8("ditto-t3", 4, "--set strategy.kind=fedper --threads 3");
  CHECK(slurp(one / "metrics.csv") == slurp(three / "metrics.csv"));
  const fs::path d1 = run8("ditto-d1", 4, "--set strategy.kind=ditto --threads 1");
  const fs::path d3 = run8("ditto-d3", 4, "--set strategy.kind=ditto --threads 3");
  CHECK(slurp(d1 / "metrics.csv") == slurp(d3 / "metrics.csv"));
}

TEST_CASE("personalisation run: fedbn keeps a TorchScript model's BatchNorm layers on the devices") {
  const fs::path file = export_model("cnn-bn", "cnn-bn-8.pt", "--input 1x8x8 --classes 4");
  const std::string model = "--set 'model={\"name\":\"torchscript\",\"file\":\"" + file.string() + "\"}' ";
  constexpr int kRounds = 6;
  const fs::path fedavg = run8("fedbn-ref", kRounds, model), fedbn = run8("fedbn", kRounds, model + "--set strategy.kind=fedbn");
  // Two BatchNorm layers of 8 and 16 channels: a weight and a bias a channel stay.
  constexpr double kNorm = 2 * (8 + 16);
  CHECK(summary(fedavg)["bytes_up"].get<double>() - summary(fedbn)["bytes_up"].get<double>() == kRounds * kDevices * 4 * kNorm);
  CHECK(summary(fedbn)["personalisation"]["devices"] == kDevices);
  check_refused("--set strategy.kind=fedbn", "fedbn needs a model with normalisation layers", "fedbn-mlp");
}

TEST_CASE("personalisation run: what does not apply is refused in one line, exit 2") {
  check_refused("--set strategy.kind=fedper --set strategy.head_layers=2", "would leave none to share", "head");
  check_refused("--set strategy.kind=fedrep --set training.local_steps=1", "fedrep needs training.local_steps of at least 2",
                "fedrep-1");
  check_refused("--set strategy.kind=fedrep --set strategy.head_steps=5", "leaves no step", "fedrep-head");
  check_refused("--set strategy.kind=fedper --set compression.downlink.kind=fp16", "not with compression.downlink", "down");
  check_refused("--set strategy.kind=fedper --set strategy.lambda=1", "strategy.lambda", "lambda");
  check_refused("--set strategy.kind=ditto --set model.cost_as=resnet18", "not with model.cost_as", "cost-as");
}
