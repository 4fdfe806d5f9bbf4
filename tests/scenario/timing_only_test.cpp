// The scenario keys of timing-only mode: training.compute, catalogue model names and
// model.cost_as, the declared timing_ratio of data-dependent compressors, what is refused there
// (stop.target_accuracy) and what becomes optional (dataset, eval); and that every shipped
// scenario has a valid timing-only twin.
#include <doctest/doctest.h>

#include <filesystem>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

const std::vector<std::string> kTimingOnly = {"training.compute=timing-only"};

json without_dataset() {
  json doc = minimal_doc();
  doc.erase("dataset");
  return doc;
}

}  // namespace

TEST_CASE("timing-only: training.compute defaults to real and takes timing-only") {
  TempDir dir;
  CHECK(parse_in(dir, minimal_doc()).training.compute == "real");
  CHECK(parse_in(dir, minimal_doc(), kTimingOnly).training.compute == "timing-only");
  CHECK(parse_error(dir, minimal_doc(), {"training.compute=timing_only"}) ==
        "training.compute: must be one of real, timing-only; got \"timing_only\" (did you mean \"timing-only\"?)");
}

TEST_CASE("timing-only: dataset and eval are optional and unused, and nothing is read from disk") {
  TempDir dir;
  const Scenario s = parse_in(dir, without_dataset(), kTimingOnly);
  CHECK(s.dataset.name.empty());
  CHECK(s.resolved["dataset"]["name"].is_null());
  const std::string d = describe(s);
  CHECK(d.find("compute   timing-only") != std::string::npos);
  CHECK(d.find("dataset   none: not read in timing-only mode") != std::string::npos);
  CHECK(d.find("eval      none in timing-only mode") != std::string::npos);
  // A real run needs its data.
  CHECK(parse_error(dir, without_dataset()) == "dataset.name: required when training.compute is real");
  // A data folder that is not on this machine: fine when nothing is read, an error otherwise.
  json doc = minimal_doc();
  doc["dataset"] = {{"name", "mnist"}, {"path", "no-such-folder"}};
  const Scenario t = parse_in(dir, doc, kTimingOnly);
  CHECK(t.dataset.path == dir / "no-such-folder");
  CHECK(describe(t).find("dataset   mnist: not read in timing-only mode") != std::string::npos);
  CHECK(parse_error(dir, doc).rfind("dataset.path: directory not found: ", 0) == 0);
}

TEST_CASE("timing-only: catalogue models by name, refused in real runs with what to do instead") {
  TempDir dir;
  json doc = without_dataset();
  doc["model"] = {{"name", "resnet50"}, {"hidden", json::array({64})}};
  const Scenario s = parse_in(dir, doc, kTimingOnly);
  CHECK(s.model.name == "resnet50");
  CHECK_FALSE(s.resolved["model"].contains("hidden"));  // mlp and cnn only: ignored
  CHECK(describe(s).find("model     resnet50 (catalogue: 25557032 parameters, 24.54 GFLOPs per training sample)") !=
        std::string::npos);
  doc["dataset"] = {{"name", "synthetic"}};
  CHECK(parse_error(dir, doc) ==
        "model.name: \"resnet50\" is a catalogue model, which edgetrain does not train: set training.compute to "
        "\"timing-only\", or train mlp or cnn with model.cost_as \"resnet50\" to charge its FLOPs and message sizes");
  doc["model"] = {{"name", "resnet-50"}};
  CHECK(parse_error(dir, doc, kTimingOnly).find("got \"resnet-50\" (did you mean \"resnet50\"?)") != std::string::npos);
}

TEST_CASE("timing-only: model.cost_as names a catalogue model, for mlp and cnn only") {
  TempDir dir;
  json doc = minimal_doc();
  CHECK(parse_in(dir, doc).model.cost_as.empty());
  doc["model"] = {{"name", "cnn"}, {"cost_as", "resnet152"}};
  const Scenario s = parse_in(dir, doc);
  CHECK(s.model.cost_as == "resnet152");
  CHECK(describe(s).find("; costs charged as resnet152 (catalogue: 60192808 parameters") != std::string::npos);
  CHECK(parse_in(dir, doc, kTimingOnly).model.cost_as == "resnet152");
  doc["model"]["cost_as"] = "resnet-152";
  CHECK(parse_error(dir, doc) ==
        "model.cost_as: must be one of resnet18, resnet34, resnet50, resnet152, vgg16, vgg19, mobilenet_v2, mobilenet_v2_075, mobilenet_v2_050, mnasnet_100, mnasnet_075, mnasnet_050, bert-base; got "
        "\"resnet-152\" (did you mean \"resnet152\"?)");
  doc["model"] = {{"name", "vgg16"}, {"cost_as", "vgg19"}};
  CHECK(parse_error(dir, doc, kTimingOnly) ==
        "model.cost_as: allowed only when model.name is mlp or cnn (here model.name is \"vgg16\")");
}

TEST_CASE("timing-only: stop.target_accuracy is refused, naming the key") {
  TempDir dir;
  json doc = minimal_doc();
  doc["stop"]["target_accuracy"] = 0.8;
  CHECK(parse_in(dir, doc).stop.target_accuracy == 0.8);
  CHECK(parse_error(dir, doc, kTimingOnly) ==
        "stop.target_accuracy: not available with training.compute timing-only: nothing is trained, so no accuracy "
        "is measured and nothing can reach it (set it to null and stop with stop.rounds or stop.sim_time_s)");
  CHECK_FALSE(parse_in(dir, doc, {"training.compute=timing-only", "stop.target_accuracy=null"}).stop.target_accuracy);
}

TEST_CASE("timing-only: timing_ratio is required where the message size depends on the data") {
  TempDir dir;
  auto with = [](json compression) {
    json doc = minimal_doc();
    doc["compression"] = std::move(compression);
    return doc;
  };
  const json threshold = with({{"kind", "threshold"}, {"threshold", 0.01}});
  CHECK(parse_error(dir, threshold, kTimingOnly) ==
        "compression.timing_ratio: required with training.compute timing-only (kind threshold sends as many "
        "entries as the gradients make it): declare the average message size as a fraction of the dense fp32 "
        "update, e.g. 0.05");
  Scenario s = parse_in(dir, threshold, {"training.compute=timing-only", "compression.timing_ratio=0.05"});
  CHECK(s.compression.uplink.timing_ratio == 0.05);
  CHECK(describe(s).find("uplink    threshold (index_bits 32, error_feedback false, threshold 0.01, timing_ratio "
                         "0.05)") != std::string::npos);
  // Real runs measure the sizes: the key is ignored there (and left out of the resolved scenario).
  s = parse_in(dir, threshold, {"compression.timing_ratio=0.05"});
  CHECK_FALSE(s.compression.uplink.timing_ratio);
  CHECK_FALSE(s.resolved["compression"].contains("timing_ratio"));
  CHECK(parse_error(dir, with({{"kind", "adacomp-bins"}}), kTimingOnly)
            .rfind("compression.timing_ratio: required with training.compute timing-only (kind adacomp-bins ", 0) == 0);
  CHECK(parse_error(dir, with({{"kind", "topk"}, {"adaptive", json::object()}}), kTimingOnly)
            .rfind("compression.timing_ratio: required with training.compute timing-only (adaptive top-k ", 0) == 0);
  CHECK(parse_error(dir, with({{"kind", "none"}, {"downlink", {{"kind", "adacomp-bins"}}}}), kTimingOnly)
            .rfind("compression.downlink.timing_ratio: required with training.compute timing-only", 0) == 0);
  // Kinds whose size has a formula need none.
  for (const char* kind :
       {"none", "fp16", "topk", "randomk", "qsgd", "terngrad", "signsgd", "onebit", "powersgd", "adacomp"}) {
    CAPTURE(kind);
    CHECK_FALSE(parse_in(dir, with({{"kind", kind}}), kTimingOnly).compression.uplink.timing_ratio);
  }
  CHECK(parse_error(dir, threshold, {"training.compute=timing-only", "compression.timing_ratio=0"}) ==
        "compression.timing_ratio: must be in (0, 4], got 0");
}

TEST_CASE("timing-only: --set training.compute=timing-only turns every shipped scenario into a valid twin") {
  // What a twin may need besides the switch, and the key the refusal names: a target accuracy
  // dropped, and a declared ratio for the data-dependent compressors.
  int scenarios = 0, with_accuracy = 0, data_dependent = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(std::string(EDGETRAIN_SOURCE_DIR) + "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    // scenarios/byo/ runs on files tools/byo/prepare.py writes (its ctest fixture, which this test
    // cannot wait for): tests/tools/byo_test.py checks its twins.
    if (entry.path().string().find("/scenarios/byo/") != std::string::npos) continue;
    CAPTURE(entry.path().string());
    ++scenarios;
    std::vector<std::string> sets = kTimingOnly;
    auto load = [&] { return load_scenario(entry.path(), sets); };
    std::string error = error_of(load);
    if (error.rfind("stop.target_accuracy: ", 0) == 0) {
      ++with_accuracy;
      sets.push_back("stop.target_accuracy=null");
      error = error_of(load);
    }
    if (error.find(".timing_ratio: required with training.compute timing-only") != std::string::npos) {
      ++data_dependent;
      sets.push_back(error.substr(0, error.find(':')) + "=0.05");
      error = error_of(load);
    }
    CHECK(error == "<no error>");
    if (error != "<no error>") continue;
    const Scenario twin = load();
    const Scenario real = load_scenario(entry.path());
    CHECK(twin.training.compute == "timing-only");
    CHECK(twin.training.mode == real.training.mode);
    CHECK(twin.devices.size() == real.devices.size());
    CHECK(twin.compression.uplink.kind == real.compression.uplink.kind);
    CHECK(describe(twin).find("compute   timing-only") != std::string::npos);
  }
  CHECK(scenarios >= 30);
  CHECK(with_accuracy > 0);
  CHECK(data_dependent == 3);  // threshold-ef, adacomp-bins, topk-10pct-adaptive
}
