// Tests of validation from in-memory JSON: defaults, every kind of error message (checked
// word for word), did-you-mean, conditional keys and cross-key rules.
#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

TEST_CASE("validate: defaults are filled in") {
  TempDir dir;
  const Scenario s = parse_in(dir, minimal_doc());
  CHECK(s.name == "scen");  // the scenario file's stem
  CHECK(s.seed == 1);
  CHECK(s.file == dir / "scen.json");
  CHECK(s.platform == dir / "platform.xml");
  CHECK(s.server == "srv");
  REQUIRE(s.devices.size() == 2);
  CHECK(s.devices[0].host == "pi-1");
  CHECK(s.devices[0].name == "pi-1");
  CHECK(s.devices[1].name == "pi-2");
  CHECK(s.dataset.name == "synthetic");
  CHECK(s.dataset.path.empty());
  CHECK(s.dataset.train_samples == 2000);
  CHECK(s.dataset.shape == std::vector<int64_t>{1, 28, 28});
  CHECK(s.dataset.classes == 10);
  CHECK(s.dataset.noise == 1.0);
  CHECK(s.dataset.partition.kind == "iid");
  CHECK(s.model.name == "mlp");
  CHECK(s.model.hidden.empty());
  CHECK(s.model.conv_channels == std::vector<int64_t>{10, 20});
  CHECK(s.model.conv_kernel == 5);
  CHECK(s.model.conv_padding == "valid");
  CHECK(s.training.mode == "sync");
  CHECK(s.training.batch_size == 32);
  CHECK(s.training.lr == 0.05);
  CHECK(s.training.momentum == 0.0);
  CHECK(s.training.weight_decay == 0.0);
  CHECK(s.eval.every_s == 5.0);
  CHECK(s.eval.test_samples == 10000);
  CHECK(s.stop.rounds == 3);
  CHECK(!s.stop.sim_time_s);
  CHECK(!s.stop.target_accuracy);
  // No stream section: no device streams (static partitions, data always available).
  CHECK(!s.devices[0].stream);
  CHECK(!s.devices[1].stream);
  // ScaDLES settings keep their defaults outside scadles mode.
  CHECK(s.training.window_s == 1.0);
  CHECK(s.training.batch_min == 8);
  CHECK(s.training.batch_max == 1024);
  CHECK(s.training.base_global_batch == 0);
  CHECK(s.training.weighting == "batch");
  CHECK(s.training.lr_scaling == "linear");
  CHECK(!s.training.injection);
  CHECK(s.report.buffer_every_s == 1.0);

  // The resolved document spells out everything that applies, and nothing that does not.
  const json& r = s.resolved;
  CHECK(r["name"] == "scen");
  CHECK(r["seed"] == 1);
  CHECK(r["platform"] == (dir / "platform.xml").string());
  CHECK(r["devices"] ==
        json::parse(R"([{"host":"pi-1","name":"pi-1","stream":null},{"host":"pi-2","name":"pi-2","stream":null}])"));
  CHECK(r["stream"].is_null());
  CHECK(r["dataset"]["train_samples"] == 2000);
  CHECK(r["dataset"]["shape"] == json::array({1, 28, 28}));
  // alpha, labels_per_device: not used
  CHECK(r["dataset"]["partition"] == json::parse(R"({"kind": "iid", "parts": null})"));
  CHECK(!r["dataset"].contains("path"));
  CHECK(r["training"]["lr"] == 0.05);
  CHECK(!r["training"].contains("window_s"));  // scadles only
  CHECK(!r["training"].contains("injection"));
  CHECK(r["report"] == json{{"buffer_every_s", 1.0}});
  CHECK(r["eval"]["every_s"] == 5.0);
  CHECK(r["stop"] ==
        json::parse(R"({"rounds": 3, "sim_time_s": null, "target_accuracy": null, "epsilon": null})"));
  CHECK(r["topology"] == json{{"kind", "flat"}});  // the hierarchical keys do not apply
}

TEST_CASE("validate: conditional defaults follow the deciding key") {
  TempDir dir;
  json doc = minimal_doc();
  doc["dataset"]["partition"] = {{"kind", "shards"}};
  Scenario s = parse_in(dir, doc);
  CHECK(s.resolved["dataset"]["partition"] ==
        json::parse(R"({"kind": "shards", "labels_per_device": 2, "parts": null})"));
  doc["dataset"]["partition"] = {{"kind", "dirichlet"}, {"alpha", 0.1}};
  s = parse_in(dir, doc);
  CHECK(s.dataset.partition.alpha == 0.1);
  CHECK(s.resolved["dataset"]["partition"] == json::parse(R"({"kind": "dirichlet", "alpha": 0.1, "parts": null})"));

  // Files: train_samples defaults to 0 (= all), synthetic-only keys are ignored (but checked).
  dir.mkdir("mnist");
  doc = minimal_doc();
  doc["dataset"] = {{"name", "mnist"}, {"path", "mnist"}, {"shape", {3, 32, 32}}};
  s = parse_in(dir, doc);
  CHECK(s.dataset.path == dir / "mnist");
  CHECK(s.dataset.train_samples == 0);
  CHECK(!s.resolved["dataset"].contains("shape"));
  CHECK(!s.resolved["dataset"].contains("classes"));
  doc["dataset"]["shape"] = "big";
  CHECK(parse_error(dir, doc) == "dataset.shape: expected a list of 3 integers, got \"big\"");
}

TEST_CASE("validate: integer and number ranges") {
  TempDir dir;
  auto with = [&](const std::string& section, const std::string& key, json value) {
    json doc = minimal_doc();
    doc[section][key] = std::move(value);
    return parse_error(dir, doc);
  };
  CHECK(with("training", "batch_size", -3) == "training.batch_size: must be a positive integer, got -3");
  CHECK(with("training", "batch_size", 0) == "training.batch_size: must be a positive integer, got 0");
  CHECK(with("training", "batch_size", 2.5) == "training.batch_size: expected a positive integer, got 2.5");
  CHECK(with("training", "batch_size", "32") == "training.batch_size: expected a positive integer, got \"32\"");
  CHECK(with("training", "lr", 0) == "training.lr: must be > 0, got 0");
  CHECK(with("training", "lr", "fast") == "training.lr: expected a number, got \"fast\"");
  CHECK(with("training", "lr", nullptr) == "training.lr: expected a number, got null");
  CHECK(with("training", "momentum", 1) == "training.momentum: must be in [0, 1), got 1");
  CHECK(with("training", "weight_decay", -0.1) == "training.weight_decay: must be >= 0, got -0.1");
  CHECK(with("stop", "target_accuracy", 1.5) == "stop.target_accuracy: must be in (0, 1], got 1.5");
  CHECK(with("stop", "target_accuracy", 0) == "stop.target_accuracy: must be in (0, 1], got 0");
  CHECK(with("stop", "rounds", 0) == "stop.rounds: must be a positive integer or null, got 0");
  CHECK(with("dataset", "classes", 1) == "dataset.classes: must be an integer in [2, 1000] or null, got 1");
  CHECK(with("dataset", "classes", 1001) == "dataset.classes: must be an integer in [2, 1000] or null, got 1001");
  CHECK(with("dataset", "noise", 0) == "dataset.noise: must be > 0, got 0");
  CHECK(with("dataset", "shape", {1, 28}) == "dataset.shape: must have 3 entries, got 2 ([1,28])");
  CHECK(with("model", "hidden", {64, 0}) == "model.hidden[1]: must be a positive integer, got 0");
  CHECK(with("model", "hidden", 64) == "model.hidden: expected a list of integers, got 64");
  CHECK(with("eval", "test_samples", 1e30) == "eval.test_samples: must be a positive integer, got 1e+30");

  json doc = minimal_doc();
  doc["seed"] = -1;
  CHECK(parse_error(dir, doc) == "seed: must be a non-negative integer, got -1");
  doc["seed"] = 18446744073709551615ULL;  // seeds use the full 64 bits
  CHECK(parse_in(dir, doc).seed == 18446744073709551615ULL);
  doc["seed"] = 7.0;  // an integer written as a float is still an integer
  CHECK(parse_in(dir, doc).seed == 7);
  doc["training"]["batch_size"] = 64.0;
  CHECK(parse_in(dir, doc).training.batch_size == 64);
  CHECK(parse_in(dir, doc).resolved["training"]["batch_size"].is_number_integer());
}

TEST_CASE("validate: quantities with units") {
  TempDir dir;
  json doc = minimal_doc();
  doc["eval"]["every_s"] = "500ms";
  doc["stop"]["sim_time_s"] = "10min";
  Scenario s = parse_in(dir, doc);
  CHECK(s.eval.every_s == doctest::Approx(0.5));
  CHECK(s.stop.sim_time_s == 600.0);
  CHECK(s.resolved["eval"]["every_s"] == 0.5);  // SI numbers in the resolved document
  CHECK(s.resolved["stop"]["sim_time_s"] == 600.0);

  doc["eval"]["every_s"] = true;
  CHECK(parse_error(dir, doc) ==
        "eval.every_s: expected a duration (number of seconds or string like \"500ms\"), got true");
  doc["eval"]["every_s"] = "5 parsecs";
  CHECK(parse_error(dir, doc) ==
        "eval.every_s: cannot read \"5 parsecs\" as a duration (use a number of seconds or a unit: us, ms, "
        "s, min, h)");
  doc["eval"]["every_s"] = "-1s";
  CHECK(parse_error(dir, doc) == "eval.every_s: must be > 0 s, got \"-1s\"");
  doc["eval"]["every_s"] = 0;
  CHECK(parse_error(dir, doc) == "eval.every_s: must be > 0 s, got 0");
}

TEST_CASE("validate: enums") {
  TempDir dir;
  json doc = minimal_doc();
  doc["model"]["name"] = "resnet";
  CHECK(parse_error(dir, doc) ==
        "model.name: must be one of mlp, cnn, torchscript, resnet18, resnet34, resnet50, resnet152, vgg16, vgg19, mobilenet_v2, mobilenet_v2_075, mobilenet_v2_050, mnasnet_100, mnasnet_075, mnasnet_050, bert-base; "
        "got \"resnet\" (did you mean \"resnet18\"?)");
  doc["model"]["name"] = 3;
  CHECK(parse_error(dir, doc) ==
        "model.name: must be one of mlp, cnn, torchscript, resnet18, resnet34, resnet50, resnet152, vgg16, vgg19, mobilenet_v2, mobilenet_v2_075, mobilenet_v2_050, mnasnet_100, mnasnet_075, mnasnet_050, bert-base; "
        "got 3");
  doc["model"]["name"] = "cnn";
  CHECK(parse_in(dir, doc).model.name == "cnn");
  doc["model"]["conv_padding"] = "same";
  doc["model"]["conv_kernel"] = 3;
  CHECK(parse_in(dir, doc).model.conv_padding == "same");
  doc["model"]["conv_kernel"] = 4;  // "same" keeps the side only with an odd kernel
  CHECK(parse_error(dir, doc) == "model.conv_padding: \"same\" needs an odd model.conv_kernel, not 4");
  doc = minimal_doc();
  doc["dataset"]["name"] = "fashion_mnist";
  CHECK(parse_error(dir, doc) ==
        "dataset.name: must be one of fashion-mnist, mnist, synthetic, npz, images, leaf, fedscale; got "
        "\"fashion_mnist\" "
        "(did you mean \"fashion-mnist\"?)");
  doc["training"]["mode"] = "synch";
  doc["dataset"]["name"] = "synthetic";
  CHECK(parse_error(dir, doc) ==
        "training.mode: must be one of sync, scadles, async, local-sgd; got \"synch\" (did you mean \"sync\"?)");
}

TEST_CASE("validate: unknown keys with did-you-mean") {
  TempDir dir;
  json doc = minimal_doc();
  doc["training"] = {{"bach_size", 64}};
  CHECK(parse_error(dir, doc) == "training.bach_size: unknown key (did you mean \"batch_size\"?)");
  doc["training"] = {{"zzz", 1}};
  CHECK(parse_error(dir, doc) ==
        "training.zzz: unknown key (expected one of: compute, compute_profile, compute_profile_file, mode, batch_size, lr, "
        "momentum, weight_decay, window_s, "
        "batch_min, batch_max, base_global_batch, weighting, lr_scaling, injection, staleness_lr, max_staleness, "
        "staleness_policy, buffer_size, start_jitter_s, staleness_history, local_steps, aggregation, server_lr, "
        "round_timeout_s, deadline, deadline_python, deadline_settings, selection)");
  doc = minimal_doc();
  doc["trainig"] = json::object();
  CHECK(parse_error(dir, doc) == "trainig: unknown key (did you mean \"training\"?)");
  doc = minimal_doc();
  doc["batch_size"] = 64;  // right key, wrong section
  CHECK(parse_error(dir, doc) == "batch_size: unknown key (did you mean \"training.batch_size\"?)");
  doc = minimal_doc();
  doc["training.lr"] = 0.1;  // dotted names are not expanded
  CHECK(parse_error(dir, doc) == "training.lr: unknown key (write nested objects, not dotted names)");
  doc = minimal_doc();
  doc["dataset"]["partition"] = {{"kind", "dirichlet"}, {"alhpa", 0.1}};
  CHECK(parse_error(dir, doc) == "dataset.partition.alhpa: unknown key (did you mean \"alpha\"?)");
  doc = minimal_doc();
  doc["devices"] = json::parse(R"(["pi-1", "pi-2", {"hots": "pi-3"}])");
  CHECK(parse_error(dir, doc) == "devices[2]: unknown key \"hots\" (did you mean \"host\"?)");
  doc["devices"] = json::parse(R"([{"host": "pi-3", "speed": 1}])");
  CHECK(parse_error(dir, doc) == "devices[0]: unknown key \"speed\" (expected one of: host, name, stream)");
  // An unknown key wins over a missing required one, so the typo gets its suggestion.
  doc = minimal_doc();
  doc.erase("server");
  doc["sever"] = "srv";
  CHECK(parse_error(dir, doc) == "sever: unknown key (did you mean \"server\"?)");
}

TEST_CASE("validate: sections, required keys and the top level") {
  TempDir dir;
  json doc = minimal_doc();
  doc["training"] = 5;
  CHECK(parse_error(dir, doc) ==
        "training: expected an object (with keys compute, compute_profile, compute_profile_file, mode, batch_size, lr, "
        "momentum, weight_decay, window_s, "
        "batch_min, "
        "batch_max, base_global_batch, weighting, lr_scaling, injection, staleness_lr, max_staleness, "
        "staleness_policy, buffer_size, start_jitter_s, staleness_history, local_steps, aggregation, server_lr, "
        "round_timeout_s, deadline, deadline_python, deadline_settings, selection) or null, got 5");
  doc = minimal_doc();
  doc.erase("server");
  CHECK(parse_error(dir, doc) == "server: required key is missing");
  doc = minimal_doc();
  doc.erase("dataset");
  CHECK(parse_error(dir, doc) == "dataset.name: required when training.compute is real");
  doc = minimal_doc();
  doc["dataset"] = {{"name", "mnist"}};
  CHECK(parse_error(dir, doc) == "dataset.path: required when dataset.name is mnist, images, leaf or fedscale");
  doc = minimal_doc();
  doc["server"] = "";
  CHECK(parse_error(dir, doc) == "server: must not be empty");
  doc["server"] = 12;
  CHECK(parse_error(dir, doc) == "server: expected a string, got 12");
  CHECK(parse_error(dir, json::array({1, 2})) == "scenario: expected a JSON object at the top level, got [1,2]");
}

TEST_CASE("validate: devices") {
  TempDir dir;
  json doc = minimal_doc();
  doc["devices"] = json::parse(R"(["pi-1", {"host": "pi-2", "name": "b"}, {"host": "pi-2", "name": "c"}])");
  Scenario s = parse_in(dir, doc);
  REQUIRE(s.devices.size() == 3);
  CHECK(s.devices[1].host == "pi-2");
  CHECK(s.devices[1].name == "b");
  CHECK(s.devices[2].name == "c");

  doc["devices"] = json::parse(R"(["pi-1", "pi-2", {"host": "pi-3"}, {"host": "pi-9", "name": "pi-1"}])");
  CHECK(parse_error(dir, doc) == "devices[3]: duplicate device name \"pi-1\"");
  doc["devices"] = json::parse(R"(["pi-1", "srv"])");
  CHECK(parse_error(dir, doc) == "devices[1]: host \"srv\" is the server; the server cannot also be a device");
  doc["devices"] = json::array();
  CHECK(parse_error(dir, doc) == "devices: must not be empty");
  doc["devices"] = "pi-1";
  CHECK(parse_error(dir, doc) ==
        "devices: expected a list (each entry a host name or an object {\"host\": ..., \"name\": ...}) or a selector "
        "object such as {\"hosts\": \"pi-*\"}, got \"pi-1\"");
  doc["devices"] = json::array({5});
  CHECK(parse_error(dir, doc) == "devices[0]: expected a host name or an object {\"host\": ..., \"name\": ...}, got 5");
  doc["devices"] = json::parse(R"(["pi-1", {"name": "x"}])");
  CHECK(parse_error(dir, doc) == "devices[1].host: required key is missing");
  doc["devices"] = json::parse(R"(["pi-1", ""])");
  CHECK(parse_error(dir, doc) == "devices[1].host: must not be empty");
  doc.erase("devices");
  CHECK(parse_error(dir, doc) == "devices: required key is missing");
}

TEST_CASE("validate: stop needs rounds or simulated time") {
  TempDir dir;
  json doc = minimal_doc();
  doc["stop"] = {{"target_accuracy", 0.9}};
  CHECK(parse_error(dir, doc) == "stop: set stop.rounds or stop.sim_time_s (or both), otherwise the run never ends");
  doc["stop"] = {{"rounds", nullptr}, {"sim_time_s", 60}};
  const Scenario s = parse_in(dir, doc);
  CHECK(!s.stop.rounds);
  CHECK(s.stop.sim_time_s == 60.0);
  doc.erase("stop");
  CHECK(parse_error(dir, doc) == "stop: set stop.rounds or stop.sim_time_s (or both), otherwise the run never ends");
}

TEST_CASE("validate: describe summarises the scenario") {
  TempDir dir;
  json doc = minimal_doc();
  doc["devices"] = json::parse(R"(["pi-1", {"host": "pi-2", "name": "b"}])");
  doc["dataset"]["partition"] = {{"kind", "dirichlet"}, {"alpha", 0.3}};
  doc["stop"]["sim_time_s"] = "2min";
  const std::string d = describe(parse_in(dir, doc, {}, 9));
  CHECK(d.find("scenario  scen (" + (dir / "scen.json").string() + ")\n") != std::string::npos);
  CHECK(d.find("seed      9\n") != std::string::npos);
  CHECK(d.find("server    srv\n") != std::string::npos);
  CHECK(d.find("devices   2: pi-1, b (on pi-2)\n") != std::string::npos);
  CHECK(d.find("dataset   synthetic, 2000 training samples of shape [1, 28, 28], 10 classes, noise 1; "
               "partition dirichlet (alpha 0.3)\n") != std::string::npos);
  CHECK(d.find("model     mlp, hidden default\n") != std::string::npos);
  CHECK(d.find("training  sync, batch 32, lr 0.05, momentum 0, weight decay 0\n") != std::string::npos);
  CHECK(d.find("eval      every 5 s (simulated), 10000 test samples\n") != std::string::npos);
  CHECK(d.find("stop      after 3 rounds, at 120 s simulated, whichever comes first\n") != std::string::npos);
  CHECK(d.find("stream    none (static partitions, data always available)\n") != std::string::npos);
  CHECK(d.find("scadles") == std::string::npos);
}

TEST_CASE("validate: describe summarises streams and ScaDLES") {
  TempDir dir;
  json doc = minimal_doc();
  doc["stream"] = {{"rate", "S10"}, {"buffer", {{"policy", "drop-oldest"}, {"capacity_samples", 500}}}};
  doc["training"] = {{"mode", "scadles"}, {"injection", {{"alpha", 0.25}, {"beta", 0.5}}}};
  std::string d = describe(parse_in(dir, doc));
  CHECK(d.find("stream    all 2 devices: rate S10 (normal, mean 64, std 24) samples/s, fluid arrivals, buffer "
               "drop-oldest (500 samples)\n") != std::string::npos);
  CHECK(d.find("scadles   batch per device clip(rate x 1 s, 8, 1024), base global batch 64 (batch x devices), "
               "weighting batch, lr scaling linear, injection alpha 0.25 beta 0.5\n") != std::string::npos);
  doc["devices"] =
      json::parse(R"(["pi-1", {"host": "pi-2", "stream": {"rate": 5}}, {"host": "pi-3", "stream": null}])");
  doc["training"] = {{"mode", "sync"}};
  d = describe(parse_in(dir, doc));
  CHECK(d.find("stream    2 of 3 devices, settings differ per device (first: rate S10") != std::string::npos);
}

TEST_CASE("validate: selection keys out of range, for another kind, or without K are refused") {
  TempDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"kind":"random","per_round":2,"over_selection":-0.5})",
       "training.selection.over_selection: must be in [0, 10], got -0.5"},
      {R"({"kind":"oort","per_round":2,"exploration":1.5})", "training.selection.exploration: must be"},
      {R"({"kind":"random","per_round":2,"alpha":3})",
       "training.selection.alpha: allowed only when training.selection.kind is oort"},
      {R"({"kind":"all","fraction":0.5})", "training.selection.fraction: allowed only when"},
      {R"({"kind":"available","over_selection":0.2})", "training.selection.over_selection: needs per_round"},
      {R"({"kind":"oort"})", "training.selection: kind oort needs one of per_round and fraction"},
      {R"({"kind":"available","per_round":1,"fraction":0.5})", "give one of per_round and fraction, not both"},
  };
  for (const auto& [selection, message] : cases) {
    CAPTURE(selection);
    const std::string error = parse_error(dir, minimal_doc(), {"training.selection=" + selection});
    CHECK(error.find(message) != std::string::npos);
    CHECK(error.find('\n') == std::string::npos);
  }
  const Scenario s =
      parse_in(dir, minimal_doc(), {R"(training.selection={"kind":"oort","per_round":1,"over_selection":0.5})"});
  CHECK(s.training.selection.exploration == 0.1);
  CHECK(s.training.selection.alpha == 2.0);
  CHECK(!s.training.selection.preferred_round_s);
  CHECK(s.training.selection.over_selection == 0.5);
}
