// Split learning (strategy.kind splitfed, docs/explanation/strategies.md) in whole runs of
// tests/sim/data/eight-devices.json (mlp 64-32-4, batch 16, mode local-sgd, 5 local steps): the bytes of
// each round against figures computed here from the model's shape; the same model as FedAvg's; timing-only
// charges the real run's bytes and time; --threads changes nothing; the server's part contends for the
// server's cores; a fault mid-exchange fails the update; validate says what goes on the wire; and what the
// scenario refuses, one line, exit 2; a TorchScript model is cut from its measured operations, or refused.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "../export_model.hpp"
#include "cli_helpers.hpp"
#include "learn/model.hpp"
#include "util/seed.hpp"

using namespace test;

namespace {

// mlp 64-32-4 cut after its first module (fc1): the device holds fc1, the server fc2.
constexpr int64_t kHidden = 32, kInput = 64, kClasses = 4, kBatch = 16, kSteps = 5, kDevices = 8, kHeader = 64;
constexpr int64_t kDeviceParams = kInput * kHidden + kHidden;     // 2080
constexpr int64_t kServerParams = kHidden * kClasses + kClasses;  // 132
// A step's activations at the cut: fc1's ReLU output, fp32, for the batch; their gradient is as large.
constexpr int64_t kActivationMessage = kBatch * kHidden * 4 + kHeader;  // 2112
constexpr int64_t kDeviceDeltaMessage = 4 * kDeviceParams + kHeader;    // dense, uncompressed

const std::string kSplit = "--set training.mode=local-sgd --set strategy.kind=splitfed ";

fs::path run8(const std::string& tag, int rounds, const std::string& sets = "") {
  return run_ok("eight-devices.json", kSplit + "--set stop.rounds=" + std::to_string(rounds) + " " + sets,
                "split-" + tag);
}

nlohmann::json summary(const fs::path& out) { return read_json(out / "summary.json"); }

void check_refused(const std::string& sets, const std::string& message, const std::string& tag) {
  run_refused("eight-devices.json", sets, message, "split-err-" + tag);
}

}  // namespace

TEST_CASE("split run: a round sends the device part's delta and K activations up, to the byte, FedAvg's model") {
  constexpr int kRounds = 6;
  const fs::path split = run8("bytes", kRounds);
  const fs::path fedavg =
      run_ok("eight-devices.json", "--set training.mode=local-sgd --set stop.rounds=" + std::to_string(kRounds),
             "split-bytes-fedavg");
  const auto s = summary(split), f = summary(fedavg);
  REQUIRE(s["status"] == "completed");
  CHECK(s["rounds"] == kRounds);
  const int64_t per_device_up = kDeviceDeltaMessage + kSteps * kActivationMessage;
  const int64_t per_device_down = 4 * kDeviceParams + kHeader + kSteps * kActivationMessage;
  CHECK(s["bytes_up"].get<int64_t>() == kRounds * kDevices * per_device_up);
  CHECK(s["bytes_down"].get<int64_t>() == kRounds * kDevices * per_device_down);
  // FedAvg sends the whole model each way.
  CHECK(f["bytes_up"].get<int64_t>() == kRounds * kDevices * (4 * (kDeviceParams + kServerParams) + kHeader));
  // Per round too (rounds.csv), and per device (devices.csv).
  const auto rounds = read_csv(split / "rounds.csv");
  REQUIRE(rounds.size() == kRounds);
  for (const auto& r : rounds) CHECK(count(r, "bytes_up") == kDevices * per_device_up);
  CHECK(count(read_csv(split / "devices.csv")[0], "bytes_up") == kRounds * per_device_up);
  // SFLV1 is the full model's local SGD on each device, then FedAvg: the same model after the same rounds.
  CHECK(s["final_test_accuracy"] == f["final_test_accuracy"]);
  CHECK(s["final_test_loss"] == f["final_test_loss"]);
  // The feature's own block.
  const auto& block = s["split"];
  CHECK(block["cut_layers"] == 1);
  CHECK(block["cut_module"] == "fc1");
  CHECK(block["device_params"] == kDeviceParams);
  CHECK(block["server_params"] == kServerParams);
  CHECK(block["activation_bytes_per_sample"] == kHidden * 4);
  CHECK(block["activation_bytes_per_step"] == kBatch * kHidden * 4);
  CHECK(block["activation_message_bytes"] == kActivationMessage);
  CHECK(block["server_step_flops_per_sample"].get<double>() == 3.0 * (2 * kHidden * kClasses + kClasses));
  CHECK(s["strategy"] == nlohmann::json{{"kind", "splitfed"}, {"cut_layers", 1}});
  CHECK_FALSE(f.contains("split"));
}

TEST_CASE("split run: compressed, timing-only charges the real run's bytes, rounds and time, and validate says them") {
  constexpr int kRounds = 4;
  const std::string topk = "--set compression.kind=topk-10% ";
  const fs::path real = run8("topk", kRounds, topk);
  const fs::path timing = run8("topk-timing", kRounds, topk + "--set training.compute=timing-only");
  const auto r = summary(real), t = summary(timing);
  CHECK(t["bytes_up"] == r["bytes_up"]);
  CHECK(t["bytes_down"] == r["bytes_down"]);
  CHECK(t["sim_time_s"] == r["sim_time_s"]);
  CHECK(slurp(timing / "rounds.csv") == slurp(real / "rounds.csv"));
  // Top-k compresses the device part's delta only: the activations go dense.
  const int64_t delta_up = r["bytes_up"].get<int64_t>() / (kRounds * kDevices) - kSteps * kActivationMessage;
  CHECK(delta_up < kDeviceDeltaMessage / 4);
  const Result v =
      run_cli("validate " + (kData / "eight-devices.json").string() + " " + kSplit + topk, "split-validate");
  REQUIRE(v.status == 0);
  INFO(v.out);
  CHECK(v.out.find("\nstrategy  splitfed (cut_layers 1)\n") != std::string::npos);
  CHECK(v.out.find("split learning: the devices run mlp's first 1 module(s), up to fc1 (2080 of 2212 parameters") !=
        std::string::npos);
  CHECK(v.out.find("128 bytes a sample, " + std::to_string(kActivationMessage) + " bytes") != std::string::npos);
  CHECK(v.out.find("uplink the device part's delta " + std::to_string(delta_up) + " bytes") != std::string::npos);
  const int64_t round_up = kDevices * (delta_up + kSteps * kActivationMessage);
  CHECK(v.out.find("of which " + std::to_string(round_up) + " bytes") != std::string::npos);
}

TEST_CASE("split run: --threads 1 and 2 give byte-identical results") {
  const fs::path one = run8("t1", 4, "--threads 1"), two = run8("t2", 4, "--threads 2");
  for (const char* file : {"metrics.csv", "devices.csv", "rounds.csv", "links.csv"}) {
    CAPTURE(file);
    CHECK(slurp(one / file) == slurp(two / file));
  }
  auto a = summary(one), b = summary(two);
  a.erase("wall_time_s");
  b.erase("wall_time_s");
  CHECK(a == b);
}

TEST_CASE("split run: the devices' server parts share the server's cores") {
  // A slow server, timing-only: each step's server part costs W = 3 x fc2's forward x 16 samples.
  constexpr int kRounds = 3;
  constexpr double kServerSpeed = 1e6;  // 1 Mflop/s, the least a platform override takes
  const std::string slow =
      "--set training.compute=timing-only --set platform.hosts.server.speed=1Mf "
      "--set 'devices=[\"d1\", \"d2\"]' ";
  const fs::path one_core = run8("cores1", kRounds, slow);
  const fs::path two_cores = run8("cores2", kRounds, slow + "--set platform.hosts.server.cores=2");
  const double w = summary(one_core)["split"]["server_step_flops_per_sample"].get<double>() * kBatch;
  // On one core the two devices' server parts, which run together, take twice as long each step.
  const double t1 = summary(one_core)["sim_time_s"].get<double>(), t2 = summary(two_cores)["sim_time_s"].get<double>();
  CHECK(t1 - t2 == doctest::Approx(kRounds * kSteps * w / kServerSpeed).epsilon(1e-6));
  // The device waits for the server meanwhile: wait, not compute.
  const auto d = read_csv(one_core / "devices.csv")[0];
  CHECK(num(d, "compute_s") == num(read_csv(two_cores / "devices.csv")[0], "compute_s"));
}

TEST_CASE("split run: refused where it does not apply, one line, exit 2") {
  check_refused(kSplit + "--set strategy.cut_layers=2",
                "strategy.cut_layers: 2 of mlp's 2 modules would leave the server none", "cut");
  check_refused("--set training.mode=local-sgd --set strategy.kind=fedavg --set strategy.cut_layers=1",
                "strategy.cut_layers", "cut-kind");
  check_refused(kSplit + "--set 'compression.downlink={\"kind\":\"topk\",\"ratio\":0.1}'",
                "strategy.kind: splitfed not with compression.downlink", "downlink");
  check_refused(kSplit + "--set training.aggregation=async", "strategy.kind: splitfed needs rounds", "async");
  check_refused(kSplit + "--set 'privacy.dp={}'", "strategy.kind: splitfed not with privacy.dp", "dp");
  check_refused(kSplit + "--set 'privacy.secure_aggregation={}'", "strategy: not with privacy.secure_aggregation",
                "secure");
  check_refused(kSplit + "--set attack.kind=sign-flip --set attack.fraction=0.25",
                "strategy.kind: splitfed not with attack", "attack");
  check_refused(kSplit + "--set defence.kind=median", "strategy.kind: splitfed not with defence", "defence");
  check_refused(kSplit + "--set model.cost_as=resnet18",
                "strategy.kind: splitfed not with model.cost_as in real training", "cost-as");
  // A population's devices share host slots.
  const Result population =
      run_cli("validate " + (kSource / "scenarios/population/phones.json").string() + " --set strategy.kind=splitfed",
              "split-err-population");
  CHECK(population.status == 2);
  CHECK(lines_of(population.err).size() == 1);
  CHECK(population.err.find("strategy.kind: splitfed not with a population") != std::string::npos);
}

TEST_CASE("split run: a catalogued model cut in a timing-only run") {
  // resnet18 cut after its stem (conv1, bn1, ReLU, max-pool): 64 x 56 x 56 activations a sample.
  const fs::path out = run8("resnet", 2,
                            "--set training.compute=timing-only --set model.cost_as=resnet18 "
                            "--set strategy.cut_layers=2");
  const auto s = summary(out);
  CHECK(s["split"]["cut_module"] == "bn1");
  CHECK(s["split"]["activation_bytes_per_sample"] == 64 * 56 * 56 * 4);
  CHECK(s["split"]["device_params"] == 64 * 3 * 7 * 7 + 2 * 64);
  const int64_t per_device_up =
      4 * (64 * 3 * 7 * 7 + 2 * 64) + kHeader + kSteps * (kBatch * 64 * 56 * 56 * 4 + kHeader);
  CHECK(s["bytes_up"].get<int64_t>() == 2 * kDevices * per_device_up);
}

TEST_CASE("split run: a link cut mid-exchange fails the device's update like a cut upload") {
  // d1's uplink is down from 5 ms to 50 ms: its first step's activations (sent at about 6.6 ms) are cut.
  const fs::path out = run8("fault", 6,
                            "--set training.round_timeout_s=1 "
                            "--set 'faults={\"links\":[{\"link\":\"d1-up\",\"off_s\":[[0.005,0.05]]}],"
                            "\"retry_s\":0.01}'");
  const auto s = summary(out);
  CHECK(s["status"] == "completed");
  CHECK(s["rounds"] == 6);
  const auto d1 = read_csv(out / "devices.csv")[0];
  CHECK(count(d1, "samples_lost_in_faults") == kBatch);  // the step in progress
  CHECK(count(d1, "rounds_aggregated") == 5);
  // The round closed without it; nothing of its cut exchange was counted (the model it received was).
  const int64_t per_device_up = kDeviceDeltaMessage + kSteps * kActivationMessage;
  CHECK(s["bytes_up"].get<int64_t>() == (6 * kDevices - 1) * per_device_up);
  CHECK(s["bytes_down"].get<int64_t>() ==
        6 * kDevices * (4 * kDeviceParams + kHeader) + (6 * kDevices - 1) * kSteps * kActivationMessage);
}

TEST_CASE("split run: a TorchScript model is cut from its measured operations, or refused in one line") {
  // The built-in mlp exported with the run's initial weights: the same cut, the same run.
  edgetrain::learn::ModelConfig mlp;
  mlp.hidden = {kHidden};
  mlp.height = mlp.width = 8;
  mlp.classes = kClasses;
  const std::vector<float> init =
      edgetrain::learn::Model(mlp).init_params(edgetrain::util::derive_seed(11, "model-init"));
  const fs::path file =
      export_model("mlp", "split-mlp-8.pt",
                   "--input 1x8x8 --classes 4 --hidden 32 --weights " + write_raw("split-mlp-8.raw", init).string());
  const std::string script = "--set 'model={\"name\":\"torchscript\",\"file\":\"" + file.string() + "\"}' ";
  const fs::path builtin = run8("builtin", 3), scripted = run8("script", 3, script);
  const auto b = summary(builtin), t = summary(scripted);
  CHECK(t["bytes_up"] == b["bytes_up"]);
  CHECK(t["bytes_down"] == b["bytes_down"]);
  CHECK(t["final_test_accuracy"] == b["final_test_accuracy"]);
  CHECK(t["split"]["activation_bytes_per_sample"] == kHidden * 4);
  CHECK(t["split"]["device_params"] == kDeviceParams);
  // A module used twice: its three layers with weights cannot be told apart into two modules.
  const fs::path twice = export_dir() / "split-twice.pt";
  const fs::path maker = export_dir() / "split-twice.py";
  std::ofstream(maker) << "import torch\n"
                          "class M(torch.nn.Module):\n"
                          "    def __init__(self):\n"
                          "        super().__init__()\n"
                          "        self.fc1 = torch.nn.Linear(64, 64)\n"
                          "        self.fc2 = torch.nn.Linear(64, 4)\n"
                          "    def forward(self, x):\n"
                          "        x = torch.relu(self.fc1(torch.flatten(x, 1)))\n"
                          "        return self.fc2(torch.relu(self.fc1(x)))\n"
                          "torch.jit.script(M()).save('"
                       << twice.string() << "')\n";
  python(maker.string());
  check_refused(kSplit + "--set 'model={\"name\":\"torchscript\",\"file\":\"" + twice.string() + "\"}'",
                "strategy.kind: splitfed cannot cut torchscript: its 2 modules do not map one to one onto the 3 layers",
                "twice");
}
