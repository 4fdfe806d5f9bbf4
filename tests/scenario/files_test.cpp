// Tests that need files: opening, JSON syntax errors with line and column, relative paths,
// and the round trip of the resolved document.
#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

TEST_CASE("files: missing file, directory, malformed JSON") {
  TempDir dir;
  const auto missing = dir / "nope.json";
  CHECK(error_of([&] { load_scenario(missing); }) == missing.string() + ": cannot open file (no such file)");
  CHECK(error_of([&] { load_scenario(dir.path()); }) == dir.path().string() + ": cannot open file (it is a directory)");

  const auto bad = dir.write("bad.json", "{\n  \"seed\": 1,\n  \"server\": ,\n}\n");
  const std::string e = error_of([&] { load_scenario(bad); });
  CHECK(e.rfind(bad.string() + ":3:13: malformed JSON: syntax error while parsing value - unexpected ','", 0) == 0);

  const auto truncated = dir.write("trunc.json", "{\"seed\": 1,\n\"dataset\": {");
  CHECK(error_of([&] { load_scenario(truncated); }).rfind(truncated.string() + ":2:13: malformed JSON: ", 0) == 0);
  const auto empty = dir.write("empty.json", "");
  CHECK(error_of([&] { load_scenario(empty); }).rfind(empty.string() + ":1:1: malformed JSON: ", 0) == 0);
}

TEST_CASE("files: loading a file, with comments, overrides and seed") {
  TempDir dir;
  const auto file = dir.write("fleet-a.json", R"({
    // comments are allowed in scenario files
    "platform": "platform.xml", "server": "srv", "devices": ["pi-1"],
    "dataset": {"name": "synthetic"}, /* block comment */ "stop": {"rounds": 2}
  })");
  const Scenario s = load_scenario(file, {"training.batch_size=8"}, 3);
  CHECK(s.name == "fleet-a");
  CHECK(s.file == file);
  CHECK(s.seed == 3);
  CHECK(s.training.batch_size == 8);
  // Errors from the content still name the JSON path.
  const auto wrong = dir.write("wrong.json", R"({"platform": "platform.xml", "server": "srv", "devices": ["a"],
    "dataset": {"name": "synthetic"}, "stop": {"rounds": -1}})");
  CHECK(error_of([&] { load_scenario(wrong); }) == "stop.rounds: must be a positive integer or null, got -1");
}

TEST_CASE("files: relative paths resolve against the scenario file") {
  TempDir dir;
  dir.write("plat/edge.xml", "<platform/>");
  dir.mkdir("sub/data/mnist");
  const auto file = dir.write("sub/scen.json", R"({
    "platform": "../plat/edge.xml", "server": "srv", "devices": ["pi-1"],
    "dataset": {"name": "mnist", "path": "data/mnist/"}, "stop": {"rounds": 1}})");
  const Scenario s = load_scenario(file);
  CHECK(s.platform == dir / "plat/edge.xml");
  CHECK(s.dataset.path == dir / "sub/data/mnist");
  CHECK(s.platform.is_absolute());
  CHECK(s.resolved["platform"] == (dir / "plat/edge.xml").string());
  CHECK(s.resolved["dataset"]["path"] == (dir / "sub/data/mnist").string());

  // Absolute paths stay as they are.
  json doc = minimal_doc();
  doc["platform"] = (dir / "plat/edge.xml").string();
  CHECK(parse_scenario(doc, dir / "elsewhere/x.json").platform == dir / "plat/edge.xml");

  // Existence and kind are checked.
  doc["platform"] = "missing.xml";
  CHECK(parse_error(dir, doc) == "platform: file not found: " + (dir / "missing.xml").string());
  doc["platform"] = "plat";
  CHECK(parse_error(dir, doc) == "platform: expected a file, found a directory: " + (dir / "plat").string());
  doc = minimal_doc();
  doc["dataset"] = {{"name", "mnist"}, {"path", "platform.xml"}};
  CHECK(parse_error(dir, doc) == "dataset.path: not a directory: " + (dir / "platform.xml").string());
  doc["dataset"] = {{"name", "mnist"}, {"path", "no-such-dir"}};
  CHECK(parse_error(dir, doc) == "dataset.path: directory not found: " + (dir / "no-such-dir").string());
  // A path given for synthetic data is not used, so it need not exist.
  doc["dataset"] = {{"name", "synthetic"}, {"path", "no-such-dir"}};
  CHECK(parse_in(dir, doc).dataset.path.empty());
}

TEST_CASE("files: fashion-mnist has a default dataset folder") {
  TempDir dir;
  json doc = minimal_doc();
  doc["dataset"] = {{"name", "fashion-mnist"}};
  const std::filesystem::path def = "/usr/share/datasets/fashion-mnist";
  if (std::filesystem::is_directory(def)) {
    const Scenario s = parse_in(dir, doc);
    CHECK(s.dataset.path == def);
    CHECK(s.resolved["dataset"]["path"] == def.string());
  } else {
    CHECK(parse_error(dir, doc) ==
          "dataset.path: directory not found: " + def.string() + " (this is the default; set dataset.path)");
  }
  dir.mkdir("fm");
  doc["dataset"]["path"] = "fm";
  CHECK(parse_in(dir, doc).dataset.path == dir / "fm");
}

namespace {
void check_same(const Scenario& a, const Scenario& b) {
  CHECK(a.name == b.name);
  CHECK(a.seed == b.seed);
  CHECK(a.platform == b.platform);
  CHECK(a.server == b.server);
  REQUIRE(a.devices.size() == b.devices.size());
  for (size_t i = 0; i < a.devices.size(); ++i) {
    CHECK(a.devices[i].name == b.devices[i].name);
    CHECK(a.devices[i].host == b.devices[i].host);
  }
  CHECK(a.dataset.name == b.dataset.name);
  CHECK(a.dataset.path == b.dataset.path);
  CHECK(a.dataset.train_samples == b.dataset.train_samples);
  CHECK(a.dataset.shape == b.dataset.shape);
  CHECK(a.dataset.classes == b.dataset.classes);
  CHECK(a.dataset.noise == b.dataset.noise);
  CHECK(a.dataset.partition.kind == b.dataset.partition.kind);
  CHECK(a.dataset.partition.labels_per_device == b.dataset.partition.labels_per_device);
  CHECK(a.dataset.partition.alpha == b.dataset.partition.alpha);
  CHECK(a.model.name == b.model.name);
  CHECK(a.model.hidden == b.model.hidden);
  CHECK(a.model.conv_channels == b.model.conv_channels);
  CHECK(a.training.mode == b.training.mode);
  CHECK(a.training.batch_size == b.training.batch_size);
  CHECK(a.training.lr == b.training.lr);
  CHECK(a.training.momentum == b.training.momentum);
  CHECK(a.training.weight_decay == b.training.weight_decay);
  CHECK(a.eval.every_s == b.eval.every_s);
  CHECK(a.eval.test_samples == b.eval.test_samples);
  CHECK(a.stop.rounds == b.stop.rounds);
  CHECK(a.stop.sim_time_s == b.stop.sim_time_s);
  CHECK(a.stop.target_accuracy == b.stop.target_accuracy);
  for (size_t i = 0; i < a.devices.size(); ++i) {
    CAPTURE(i);
    REQUIRE(a.devices[i].stream.has_value() == b.devices[i].stream.has_value());
    if (!a.devices[i].stream) continue;
    const StreamSpec &x = *a.devices[i].stream, &y = *b.devices[i].stream;
    CHECK(x.rate.dist == y.rate.dist);
    CHECK(x.rate.value == y.rate.value);
    CHECK(x.rate.mean == y.rate.mean);
    CHECK(x.rate.spread == y.rate.spread);
    CHECK(x.rate.std == y.rate.std);
    CHECK(x.rate.values == y.rate.values);
    CHECK(x.rate.preset == y.rate.preset);
    CHECK(x.arrivals == y.arrivals);
    CHECK(x.trace == y.trace);
    CHECK(x.buffer.policy == y.buffer.policy);
    CHECK(x.buffer.capacity_samples == y.buffer.capacity_samples);
    CHECK(x.buffer.window_s == y.buffer.window_s);
    CHECK(x.sample_bytes == y.sample_bytes);
  }
  CHECK(a.training.window_s == b.training.window_s);
  CHECK(a.training.batch_min == b.training.batch_min);
  CHECK(a.training.batch_max == b.training.batch_max);
  CHECK(a.training.base_global_batch == b.training.base_global_batch);
  CHECK(a.training.weighting == b.training.weighting);
  CHECK(a.training.lr_scaling == b.training.lr_scaling);
  REQUIRE(a.training.injection.has_value() == b.training.injection.has_value());
  if (a.training.injection) {
    CHECK(a.training.injection->alpha == b.training.injection->alpha);
    CHECK(a.training.injection->beta == b.training.injection->beta);
  }
  CHECK(a.report.buffer_every_s == b.report.buffer_every_s);
  CHECK(a.resolved == b.resolved);
}
}  // namespace

TEST_CASE("files: the resolved document reloads to the same scenario") {
  TempDir dir;
  dir.mkdir("data");
  const auto file = dir.write("orig/run.json", R"({
    "platform": "../platform.xml", "server": "srv",
    "devices": ["pi-1", {"host": "pi-2", "name": "two"}],
    "dataset": {"name": "mnist", "path": "../data", "train_samples": 600,
                "partition": {"kind": "shards", "labels_per_device": 3}},
    "model": {"name": "cnn", "hidden": [40]},
    "training": {"lr": 0.01, "momentum": 0.9},
    "eval": {"every_s": "1500ms"},
    "stop": {"sim_time_s": "1h", "target_accuracy": 0.8}})");
  const Scenario a = load_scenario(file, {"seed=11"});
  CHECK(a.eval.every_s == 1.5);
  CHECK(a.stop.sim_time_s == 3600.0);

  // Written elsewhere (as results/<run>/scenario.json would be) and read back.
  const auto copy = dir.write("results/run/scenario.json", a.resolved.dump(2));
  const Scenario b = load_scenario(copy);
  check_same(a, b);
  CHECK(b.name == "run");  // the name is spelled out, not taken from the new file's stem
  // And once more from memory with no file at all.
  check_same(a, parse_scenario(a.resolved, {}));
  // The synthetic variant, with its own conditional keys.
  const Scenario c = parse_in(dir, minimal_doc(), {"dataset.partition.kind=dirichlet", "stop.target_accuracy=0.5"});
  check_same(c, parse_scenario(c.resolved, dir / "other" / "x.json"));
}

TEST_CASE("files: a resolved scenario with streams reloads to the same scenario") {
  TempDir dir;
  dir.write("orig/traces/day.csv", "time_s,rate\n0,10\n60,20\n");
  // A mixed fleet: global stream, one device overriding rate and buffer, one opting out, one
  // with its own trace.
  const auto file = dir.write("orig/streams.json", R"({
    "platform": "../platform.xml", "server": "srv",
    "stream": {"rate": "S10", "arrivals": "poisson", "sample_bytes": "3KiB",
               "buffer": {"policy": "drop-oldest", "capacity_samples": 500}},
    "devices": ["pi-1",
                {"host": "pi-2", "name": "two", "stream": {"rate": {"dist": "uniform", "mean": 38, "spread": 24},
                                                          "buffer": {"policy": "truncation", "window_s": "500ms"}}},
                {"host": "pi-3", "stream": null},
                {"host": "pi-4", "stream": {"trace": "traces/day.csv", "rate": null}}],
    "dataset": {"name": "synthetic"},
    "report": {"buffer_every_s": "2s"},
    "stop": {"rounds": 5}})");
  const Scenario a = load_scenario(file);
  REQUIRE(a.devices.size() == 4);
  CHECK(a.devices[0].stream->rate.preset == "S10");
  CHECK(a.devices[1].stream->rate.dist == "uniform");
  CHECK(!a.devices[2].stream);
  CHECK(a.devices[3].stream->trace == dir / "orig/traces/day.csv");
  const auto copy = dir.write("results/streams/scenario.json", a.resolved.dump(2));
  check_same(a, load_scenario(copy));
  check_same(a, parse_scenario(a.resolved, {}));

  // ScaDLES: a global trace, a device's own rate (which drops the inherited trace), injection.
  const auto scadles = dir.write("orig/scadles.json", R"({
    "platform": "../platform.xml", "server": "srv",
    "stream": {"trace": "traces/day.csv"},
    "devices": ["pi-1", {"host": "pi-2", "stream": {"rate": 12}}, {"host": "pi-3", "stream": {"rate": "S2"}}],
    "dataset": {"name": "synthetic"},
    "training": {"mode": "scadles", "window_s": "2s", "batch_min": 4, "batch_max": 256, "base_global_batch": 96,
                 "weighting": "uniform", "lr_scaling": "none", "injection": {"alpha": 0.25, "beta": 0.5}},
    "stop": {"sim_time_s": "10min"}})");
  const Scenario c = load_scenario(scadles, {"training.lr=0.1"});
  CHECK(c.devices[0].stream->trace == dir / "orig/traces/day.csv");
  CHECK(c.devices[1].stream->trace.empty());
  CHECK(c.devices[1].stream->rate.value == 12.0);
  CHECK(c.devices[2].stream->rate.preset == "S2");
  const auto copy2 = dir.write("results/scadles/scenario.json", c.resolved.dump(2));
  check_same(c, load_scenario(copy2));
  check_same(c, parse_scenario(c.resolved, dir / "elsewhere" / "x.json"));
}

TEST_CASE("files: parse_scenario only throws ScenarioError") {
  TempDir dir;
  // Odd inputs that could trip a nlohmann exception if not handled.
  for (std::string set : {"devices.0.host.x=1",
                          "devices.99999999999=1",
                          "model.hidden.-1=1",
                          "dataset=[]",
                          "devices=null",
                          "devices.0={}",
                          "stop=7",
                          "seed=1e30",
                          "seed=-0.5",
                          "devices.0=\"\"",
                          "dataset.name=\xff\xfe",
                          "stream=5",
                          "stream.rate={}",
                          "stream.rate=[]",
                          "stream.rate=1e999",
                          "stream.rate.values.0=1",
                          "stream.rate.values=[1e999]",
                          "devices.0.stream=7",
                          "devices.0.stream.buffer=3",
                          "stream.buffer.window_s=-1",
                          "stream.sample_bytes=1e300",
                          "training.injection=[]",
                          "stream.trace=\xff"}) {
    CAPTURE(set);
    const std::string e = parse_error(dir, minimal_doc(), {set});
    CHECK(e != "<no error>");
    CHECK(e.find("<not a ScenarioError") == std::string::npos);
  }
}
