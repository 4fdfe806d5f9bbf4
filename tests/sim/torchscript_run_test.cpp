// Whole runs of the user's TorchScript module (model.name torchscript): the built-in mlp exported
// with the run's initial weights gives the very same run; a cnn with BatchNorm trains in sync,
// async and local-sgd with top-k and error feedback, byte-identical for 1 and 2 workers; a
// timing-only run charges the measured costs exactly as the real run does.
#include <doctest/doctest.h>

#include "../export_model.hpp"
#include "cli_helpers.hpp"
#include "learn/model.hpp"
#include "util/seed.hpp"

using namespace test;
namespace learn = edgetrain::learn;

namespace {

const char* const kOutputs[] = {"metrics.csv", "devices.csv", "links.csv", "staleness.csv", "buffers.csv"};

// eight-devices.json's model (mlp [32] on 1x8x8 synthetic samples, 4 classes) replaced by `file`.
std::string script_model(const fs::path& file) {
  return "--set 'model={\"name\":\"torchscript\",\"file\":\"" + file.string() + "\"}'";
}

fs::path cnn_bn() {
  static const fs::path file = export_model("cnn-bn", "cnn-bn-8.pt", "--input 1x8x8 --classes 4");
  return file;
}

}  // namespace

TEST_CASE("torchscript run: the built-in mlp exported with the run's initial weights gives the same run") {
  learn::ModelConfig mlp;
  mlp.hidden = {32};
  mlp.height = mlp.width = 8;
  mlp.classes = 4;
  const std::vector<float> init = learn::Model(mlp).init_params(edgetrain::util::derive_seed(11, "model-init"));
  const fs::path file = export_model("mlp", "mlp-8.pt", "--input 1x8x8 --classes 4 --hidden 32 --weights " +
                                                             write_raw("mlp-8.raw", init).string());
  const std::string sets = "--set training.momentum=0.9 --set compression.kind=topk --set compression.ratio=0.1";
  const fs::path builtin = run_ok("eight-devices.json", sets, "ts-builtin");
  const fs::path script = run_ok("eight-devices.json", sets + " " + script_model(file), "ts-script");
  for (const char* f : kOutputs) {
    CAPTURE(f);
    CHECK(!slurp(builtin / f).empty());
    CHECK(slurp(builtin / f) == slurp(script / f));
  }
  CHECK(read_json(script / "summary.json")["final_test_accuracy"] ==
        read_json(builtin / "summary.json")["final_test_accuracy"]);
}

TEST_CASE("torchscript run: a cnn with BatchNorm trains in sync, async and local-sgd with top-k and error feedback, "
          "the same bytes for 1 and 2 workers") {
  const std::string compressed =
      " --set compression.kind=topk --set compression.ratio=0.1 --set compression.error_feedback=true";
  const std::pair<const char*, std::string> modes[] = {
      {"sync", "--set stop.rounds=10"},
      {"async", "--set training.mode=async --set stop.rounds=40"},
      {"local-sgd", "--set training.mode=local-sgd --set training.local_steps=3 --set stop.rounds=6"},
  };
  fs::path sync;
  for (const auto& [mode, sets] : modes) {
    CAPTURE(std::string(mode));
    const std::string all = sets + compressed + " " + script_model(cnn_bn());
    const fs::path one = run_ok("eight-devices.json", all + " --threads 1", std::string("ts-cnn-1-") + mode);
    const fs::path two = run_ok("eight-devices.json", all + " --threads 2", std::string("ts-cnn-2-") + mode);
    for (const char* f : kOutputs) {
      CAPTURE(f);
      CHECK(slurp(one / f) == slurp(two / f));
    }
    REQUIRE(read_csv(one / "metrics.csv").size() >= 2);
    if (std::string(mode) == "sync") sync = one;
  }
  const auto metrics = read_csv(sync / "metrics.csv");
  CHECK(num(metrics.back(), "test_loss") < num(metrics.front(), "test_loss"));  // it learns
}

TEST_CASE("torchscript run: timing-only charges the measured costs as the real run does") {
  const std::string sets = "--set compression.kind=topk --set compression.ratio=0.1 " + script_model(cnn_bn());
  const fs::path real = run_ok("eight-devices.json", sets, "ts-timing-real");
  const fs::path timing = run_ok("eight-devices.json", sets + " --set training.compute=timing-only", "ts-timing-only");
  for (const char* f : {"devices.csv", "links.csv"}) {
    CAPTURE(f);
    CHECK(slurp(real / f) == slurp(timing / f));
  }
  CHECK(read_json(real / "summary.json")["sim_time_s"] == read_json(timing / "summary.json")["sim_time_s"]);
}
