// Tests of the ScaDLES training mode keys (training.mode scadles and its settings) and of the
// report section.
#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

// minimal_doc() in scadles mode, every device streaming at S10.
json scadles_doc() {
  json doc = minimal_doc();
  doc["stream"] = {{"rate", "S10"}};
  doc["training"] = {{"mode", "scadles"}};
  return doc;
}

}  // namespace

TEST_CASE("scadles: defaults") {
  TempDir dir;
  const Scenario s = parse_in(dir, scadles_doc());
  CHECK(s.training.mode == "scadles");
  CHECK(s.training.window_s == 1.0);
  CHECK(s.training.batch_min == 8);
  CHECK(s.training.batch_max == 1024);
  CHECK(s.training.base_global_batch == 0);  // batch_size x number of devices
  CHECK(s.training.weighting == "batch");
  CHECK(s.training.lr_scaling == "linear");
  CHECK(!s.training.injection);
  const json& t = s.resolved["training"];
  CHECK(t["window_s"] == 1.0);
  CHECK(t["batch_min"] == 8);
  CHECK(t["batch_max"] == 1024);
  CHECK(t["base_global_batch"].is_null());
  CHECK(t["weighting"] == "batch");
  CHECK(t["lr_scaling"] == "linear");
  CHECK(t["injection"].is_null());
}

TEST_CASE("scadles: settings") {
  TempDir dir;
  json doc = scadles_doc();
  doc["training"] = json::parse(R"({"mode": "scadles", "window_s": "500ms", "batch_min": 4, "batch_max": 64,
      "base_global_batch": 256, "weighting": "uniform", "lr_scaling": "none",
      "injection": {"alpha": 0.25, "beta": 0.5}})");
  Scenario s = parse_in(dir, doc);
  CHECK(s.training.window_s == doctest::Approx(0.5));
  CHECK(s.training.batch_min == 4);
  CHECK(s.training.batch_max == 64);
  CHECK(s.training.base_global_batch == 256);
  CHECK(s.training.weighting == "uniform");
  CHECK(s.training.lr_scaling == "none");
  REQUIRE(s.training.injection);
  CHECK(s.training.injection->alpha == 0.25);
  CHECK(s.training.injection->beta == 0.5);
  CHECK(s.resolved["training"]["injection"] == json::parse(R"({"alpha": 0.25, "beta": 0.5})"));
  doc["training"]["base_global_batch"] = 0;  // 0 means the same as null
  doc["training"]["batch_min"] = 64;         // equal bounds are fine
  doc["training"]["injection"] = {{"alpha", 1}, {"beta", 1}};
  s = parse_in(dir, doc);
  CHECK(s.training.base_global_batch == 0);
  CHECK(s.training.batch_min == 64);
  CHECK(s.training.injection->alpha == 1.0);
}

TEST_CASE("scadles: needs a stream for every device") {
  TempDir dir;
  json doc = minimal_doc();
  doc["training"] = {{"mode", "scadles"}};
  CHECK(parse_error(dir, doc) ==
        "training.mode: scadles needs a stream for every device (devices[0] has none: add a global stream section or "
        "devices[0].stream)");
  // Some devices streaming on their own is not enough.
  doc["devices"] = json::parse(R"([{"host": "pi-1", "stream": {"rate": 5}}, "pi-2", "pi-3", "pi-4"])");
  CHECK(parse_error(dir, doc) ==
        "training.mode: scadles needs a stream for every device (devices[1] has none: add a global stream section or "
        "devices[1].stream)");
  // Every device with its own stream is.
  doc["devices"] =
      json::parse(R"([{"host": "pi-1", "stream": {"rate": 5}}, {"host": "pi-2", "stream": {"rate": "S1"}}])");
  CHECK(parse_in(dir, doc).training.mode == "scadles");
  // A device opting out of the global stream.
  doc = scadles_doc();
  doc["devices"] = json::parse(R"(["pi-1", "pi-2", "pi-3", {"host": "pi-4", "stream": null}])");
  CHECK(parse_error(dir, doc) ==
        "training.mode: scadles needs a stream for every device (devices[3] has none: add a global stream section or "
        "devices[3].stream)");
  // Sync mode runs on streams too, or on a mixed fleet.
  doc["training"]["mode"] = "sync";
  CHECK(!parse_in(dir, doc).devices[3].stream);
}

TEST_CASE("scadles: errors") {
  TempDir dir;
  auto with = [&](const std::string& key, json value) {
    json doc = scadles_doc();
    doc["training"][key] = std::move(value);
    return parse_error(dir, doc);
  };
  CHECK(with("batch_min", 100) == "<no error>");
  CHECK(with("batch_min", 2000) == "training.batch_min: must be <= training.batch_max (1024), got 2000");
  CHECK(with("batch_min", 0) == "training.batch_min: must be a positive integer, got 0");
  CHECK(with("batch_max", 0) == "training.batch_max: must be a positive integer, got 0");
  CHECK(with("base_global_batch", -1) == "training.base_global_batch: must be a non-negative integer or null, got -1");
  CHECK(with("base_global_batch", 2.5) ==
        "training.base_global_batch: expected a non-negative integer or null, got 2.5");
  CHECK(with("window_s", 0) == "training.window_s: must be > 0 s, got 0");
  CHECK(with("weighting", "weighted") == "training.weighting: must be one of batch, uniform; got \"weighted\"");
  CHECK(with("lr_scaling", "sqrt") == "training.lr_scaling: must be one of linear, none; got \"sqrt\"");
  CHECK(with("injection", {{"alpha", 0}, {"beta", 0.5}}) == "training.injection.alpha: must be in (0, 1], got 0");
  CHECK(with("injection", {{"alpha", 0.5}, {"beta", 1.5}}) == "training.injection.beta: must be in (0, 1], got 1.5");
  CHECK(with("injection", {{"alpha", 0.5}}) == "training.injection.beta: required key is missing");
  CHECK(with("injection", json::object()) == "training.injection.alpha: required key is missing");
  CHECK(with("injection", {{"alpha", 0.5}, {"beta", 0.5}, {"gama", 1}}) ==
        "training.injection.gama: unknown key (expected one of: alpha, beta)");
  CHECK(with("injection", {{"alhpa", 0.5}}) == "training.injection.alhpa: unknown key (did you mean \"alpha\"?)");
  CHECK(with("injection", 5) == "training.injection: expected an object (with keys alpha, beta) or null, got 5");
  CHECK(with("injection", nullptr) == "<no error>");
  json doc = scadles_doc();
  doc["training"]["batch_max"] = 64;
  doc["training"]["batch_min"] = 100;
  CHECK(parse_error(dir, doc) == "training.batch_min: must be <= training.batch_max (64), got 100");
}

TEST_CASE("scadles: its keys are checked but ignored in sync mode") {
  TempDir dir;
  json doc = minimal_doc();
  doc["training"] = json::parse(R"({"mode": "sync", "batch_min": 100, "batch_max": 64, "weighting": "uniform",
      "injection": {"alpha": 0.5}})");
  const Scenario s = parse_in(dir, doc);  // no bound rule, no missing beta: none of it applies
  CHECK(s.training.batch_min == 8);
  CHECK(s.training.batch_max == 1024);
  CHECK(s.training.weighting == "batch");
  CHECK(!s.training.injection);
  for (const char* key : {"batch_min", "batch_max", "weighting", "injection", "window_s"}) {
    CHECK(!s.resolved["training"].contains(key));
  }
  doc["training"]["batch_min"] = 0;
  CHECK(parse_error(dir, doc) == "training.batch_min: must be a positive integer, got 0");
  doc["training"]["batch_min"] = 8;
  doc["training"]["injection"] = {{"alpha", 2}};
  CHECK(parse_error(dir, doc) == "training.injection.alpha: must be in (0, 1], got 2");
}

TEST_CASE("report: buffer rows interval") {
  TempDir dir;
  json doc = minimal_doc();
  doc["report"] = {{"buffer_every_s", "250ms"}};
  const Scenario s = parse_in(dir, doc);
  CHECK(s.report.buffer_every_s == doctest::Approx(0.25));
  CHECK(s.resolved["report"]["buffer_every_s"] == doctest::Approx(0.25));
  doc["report"]["buffer_every_s"] = 0;
  CHECK(parse_error(dir, doc) == "report.buffer_every_s: must be > 0 s, got 0");
  doc["report"] = {{"buffers_every_s", 1}};
  CHECK(parse_error(dir, doc) == "report.buffers_every_s: unknown key (did you mean \"buffer_every_s\"?)");
}
