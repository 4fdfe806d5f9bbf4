// Timing-only runs (training.compute = timing-only): no tensors and no data, yet the same
// simulated times and bytes as real runs wherever sizes do not depend on the data; round times
// computed by hand (tests/sim/two_devices.hpp); catalogue models charged their published costs;
// model.cost_as makes a real run charge a catalogued model's time and bytes.
#include <doctest/doctest.h>

#include "compute/devices.hpp"
#include "learn/model_shape.hpp"
#include "two_devices.hpp"

using namespace test;

namespace {

constexpr const char* kTimingOnly = " --set training.compute=timing-only";

// What must not depend on the back-end: simulated time, bytes, every device's time split and
// counters, the links, the buffers and the staleness of each applied push.
void check_same_timing(const fs::path& real, const fs::path& timing) {
  const auto a = read_json(real / "summary.json"), b = read_json(timing / "summary.json");
  for (const char* key : {"rounds", "sim_time_s", "bytes_up", "bytes_down", "samples_trained", "failed_pushes",
                          "late_pushes", "missing_updates", "stale_drops", "restarts", "samples_injected"}) {
    CAPTURE(key);
    CHECK(a[key] == b[key]);
  }
  for (const char* file : {"devices.csv", "links.csv", "buffers.csv", "staleness.csv"}) {
    CAPTURE(file);
    CHECK(slurp(real / file) == slurp(timing / file));
  }
  CHECK(b["compute"] == "timing-only");
  CHECK(b["final_test_accuracy"].is_null());
  CHECK(read_csv(timing / "metrics.csv").empty());
}

}  // namespace

TEST_CASE("timing-only: round time is max(down + FLOPs / speed + up) + apply, by hand") {
  const fs::path out = run_two_devices("timing-analytic", kTimingOnly);
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["status"] == "completed");
  CHECK(summary["rounds"] == kRounds);
  CHECK(summary["bytes_up"] == 2 * kRounds * kDenseMessage);
  double slowest = 0;
  for (const Device& d : kDevices) slowest = std::max(slowest, transfer_s(d.down) + compute_s(d) + transfer_s(d.up));
  CHECK(summary["sim_time_s"].get<double>() == doctest::Approx(kRounds * (slowest + apply_s(2))).epsilon(1e-9));
  const auto devices = read_csv(out / "devices.csv");
  for (size_t i = 0; i < 2; ++i) {
    CHECK(num(devices[i], "compute_s") == doctest::Approx(kRounds * compute_s(kDevices[i])).epsilon(1e-9));
    CHECK(count(devices[i], "samples_trained") == kRounds * kBatch);
  }
}

TEST_CASE("timing-only equals real: sync with every data-independent compressor, both directions") {
  for (const char* kind :
       {"none", "fp16", "topk", "randomk", "qsgd", "terngrad", "signsgd", "onebit", "powersgd", "adacomp"}) {
    CAPTURE(kind);
    const std::string sets = std::string("--set compression.kind=") + kind +
                             " --set 'compression.downlink={\"kind\":\"topk\",\"ratio\":0.1}'";
    check_same_timing(run_two_devices(std::string("timing-eq-real-") + kind, sets),
                      run_two_devices(std::string("timing-eq-tonly-") + kind, sets + kTimingOnly));
  }
}

TEST_CASE("timing-only equals real: scadles with streams and injection, async, local-sgd, faults, link traces") {
  const std::string variants[] = {
      "--set training.mode=scadles --set 'stream={\"rate\":{\"dist\":\"uniform\",\"mean\":60,\"spread\":40},"
      "\"arrivals\":\"poisson\",\"buffer\":{\"policy\":\"drop-oldest\",\"capacity_samples\":200}}' "
      "--set training.batch_min=4 --set 'training.injection={\"alpha\":0.5,\"beta\":0.25}' --set stop.rounds=20",
      "--set training.mode=async --set training.max_staleness=1 --set training.staleness_lr=adacomp "
      "--set compression.kind=topk --set compression.ratio=0.05 --set stop.rounds=30",
      "--set training.mode=local-sgd --set training.local_steps=3 --set training.aggregation=async "
      "--set stop.rounds=12",
      "--set 'faults={\"devices\":[{\"device\":\"*\",\"mtbf_s\":0.1,\"mttr_s\":0.03}],"
      "\"links\":[{\"link\":\"a-up\",\"off_s\":[[0.05,0.09]]}]}' --set training.round_timeout_s=0.2 "
      "--set stop.rounds=null --set stop.sim_time_s=1",
  };
  int k = 0;
  for (const std::string& sets : variants) {
    CAPTURE(sets);
    const std::string tag = "timing-modes-" + std::to_string(k++);
    check_same_timing(run_two_devices(tag + "-real", sets), run_two_devices(tag + "-tonly", sets + kTimingOnly));
  }
}

TEST_CASE("timing-only: a catalogue model is charged its published parameters and FLOPs") {
  // resnet18: 11,689,512 parameters; 1.814 GMACs forward (torchvision), so about 3 x 3.64 GFLOP per
  // training sample; a batch of 8 on dev-a's 1 GFLOP/s takes about 87 s of simulated compute.
  const fs::path out = run_two_devices("timing-resnet18", std::string(kTimingOnly) + " --set model.name=resnet18");
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["model_params"] == 11689512);
  CHECK(summary["charged_model"] == "resnet18");
  const double step = summary["model_step_flops_per_sample"];
  CHECK(step == doctest::Approx(3 * 2 * 1.814e9).epsilon(0.01));
  CHECK(summary["bytes_up"] == 2 * kRounds * (4.0 * 11689512 + kHeader));
  const auto devices = read_csv(out / "devices.csv");
  CHECK(num(devices[0], "compute_s") == doctest::Approx(kRounds * step * kBatch / 1e9).epsilon(1e-9));
}

TEST_CASE("model.cost_as: a real run charges the catalogued model's time and bytes") {
  const std::string sets = " --set model.cost_as=mobilenet_v2 --set compression.kind=topk --set compression.ratio=0.01";
  const fs::path real = run_two_devices("cost-as-real", sets);
  const fs::path timing =
      run_two_devices("cost-as-tonly", std::string(kTimingOnly) + " --set model.name=mobilenet_v2 " +
                                           "--set compression.kind=topk --set compression.ratio=0.01");
  const auto a = read_json(real / "summary.json"), b = read_json(timing / "summary.json");
  CHECK(a["charged_model"] == "mobilenet_v2");
  CHECK(a["model_params"] == 3504872);
  for (const char* key : {"sim_time_s", "bytes_up", "bytes_down"}) {
    CAPTURE(key);
    CHECK(a[key] == b[key]);
  }
  CHECK(a["final_test_accuracy"].get<double>() > 0);  // the small model really trained
}

TEST_CASE("timing-only: data-dependent sizes need a declared ratio, recorded in summary.json") {
  const std::string base = "run " + (kData / "two-devices.json").string() + " --quiet" + kTimingOnly +
                           " --set compression.kind=threshold --set compression.threshold=0.01";
  const Result refused = run_cli(base + " --out " + fresh_dir("timing-ratio-refused").string(), "timing-ratio");
  CHECK(refused.status == 2);
  CHECK(refused.err.find("compression.timing_ratio") != std::string::npos);
  const fs::path out =
      run_two_devices("timing-ratio", std::string(kTimingOnly) +
                                          " --set compression.kind=threshold "
                                          "--set compression.threshold=0.01 --set compression.timing_ratio=0.25");
  const auto summary = read_json(out / "summary.json");
  CHECK(summary["declared_sizes"]["compression.timing_ratio"] == 0.25);
  CHECK(summary["bytes_up"] == 2 * kRounds * (std::llround(0.25 * 4 * kParams) + kHeader));
}

TEST_CASE("training.compute_profile: each step costs the profile's roofline time, whatever the host's speed") {
  const fs::path out = run_two_devices("compute-profile", std::string(kTimingOnly) + " --set training.compute_profile=rpi4");
  edgetrain::learn::ModelConfig mlp;  // the scenario's mlp 64-16-4
  mlp.hidden = {16};
  mlp.height = mlp.width = 8;
  mlp.classes = 4;
  const double step_s = edgetrain::compute::step_cost(edgetrain::learn::model_shape(mlp).compute_layers,
                                                      static_cast<int64_t>(kBatch),
                                                      edgetrain::compute::find_device("rpi4")->profile)
                            .step_s;
  const auto devices = read_csv(out / "devices.csv");
  for (size_t i = 0; i < 2; ++i) {  // dev-a at 1 GFLOP/s, dev-b at 2: the same step time
    CHECK(num(devices[i], "compute_s") == doctest::Approx(kRounds * step_s).epsilon(1e-9));
  }
  const auto compute = read_json(out / "summary.json")["fidelity"]["compute"];
  CHECK(compute["model"] == "roofline-by-layer-kind");
  CHECK(compute["profile"] == "rpi4");
}
