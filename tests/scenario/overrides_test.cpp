// Tests of --set overrides and the seed override.
#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

TEST_CASE("overrides: JSON values and plain strings") {
  TempDir dir;
  const Scenario s = parse_in(dir, minimal_doc(),
                              {"training.lr=0.1", "model.name=cnn", "model.hidden=[64, 32]", "server=\"srv2\"",
                               "stop.rounds=null", "stop.sim_time_s=90s", "eval.every_s=250ms", "name=2024"});
  CHECK(s.training.lr == 0.1);
  CHECK(s.model.name == "cnn");
  CHECK(s.model.hidden == std::vector<int64_t>{64, 32});
  CHECK(s.server == "srv2");
  CHECK(!s.stop.rounds);
  CHECK(s.stop.sim_time_s == 90.0);
  CHECK(s.eval.every_s == doctest::Approx(0.25));
  CHECK(s.name == "2024");  // a text key keeps the text, even when it reads as a number
}

TEST_CASE("overrides: list indices") {
  TempDir dir;
  json doc = minimal_doc();
  doc["model"]["hidden"] = {64, 32};
  Scenario s = parse_in(dir, doc, {"model.hidden.1=16"});
  CHECK(s.model.hidden == std::vector<int64_t>{64, 16});
  s = parse_in(dir, minimal_doc(), {"model.hidden.0=8"});  // absent list: created, index 0 appends
  CHECK(s.model.hidden == std::vector<int64_t>{8});
  s = parse_in(dir, minimal_doc(), {"devices.0=pi-9", "devices.2=pi-3", "devices.1.name=second"});
  REQUIRE(s.devices.size() == 3);
  CHECK(s.devices[0].host == "pi-9");
  CHECK(s.devices[1].host == "pi-2");  // the string entry became {"host": "pi-2", "name": "second"}
  CHECK(s.devices[1].name == "second");
  CHECK(s.devices[2].host == "pi-3");
  s = parse_in(dir, minimal_doc(), {R"(devices.1={"host": "pi-7", "name": "seven"})"});
  CHECK(s.devices[1].name == "seven");
  s = parse_in(dir, minimal_doc(), {"dataset.partition.kind=shards", "dataset.partition.labels_per_device=3"});
  CHECK(s.dataset.partition.kind == "shards");
  CHECK(s.dataset.partition.labels_per_device == 3);

  CHECK(parse_error(dir, minimal_doc(), {"devices.5=x"}) ==
        "--set devices.5=x: index 5 is out of range (devices has 2 entries; index 2 appends)");
  CHECK(parse_error(dir, minimal_doc(), {"training.0=1"}) == "--set training.0=1: training is not a list");
  CHECK(parse_error(dir, minimal_doc(), {"0=1"}) == "--set 0=1: a key path cannot start with a list index");
  CHECK(parse_error(dir, minimal_doc(), {"model.hidden.0.x=1"}) ==
        "model.hidden[0].x: unknown key (model.hidden[0] is a single value, with no keys inside)");
  CHECK(parse_error(dir, minimal_doc(), {"model.hidden.-1=5"}) ==
        "model.hidden.-1: unknown key (model.hidden is a list: index it, e.g. model.hidden.0)");
  CHECK(parse_error(dir, minimal_doc(), {"devices.host=x"}) ==
        "devices.host: unknown key (devices is a list: index it, e.g. devices.0.host)");
}

TEST_CASE("overrides: unknown keys and malformed overrides") {
  TempDir dir;
  CHECK(parse_error(dir, minimal_doc(), {"training.bach_size=64"}) ==
        "training.bach_size: unknown key (did you mean \"batch_size\"?)");
  CHECK(parse_error(dir, minimal_doc(), {"devices.0.hots=pi-3"}) ==
        "devices[0]: unknown key \"hots\" (did you mean \"host\"?)");
  CHECK(parse_error(dir, minimal_doc(), {"modle.name=cnn"}) == "modle: unknown key (did you mean \"model\"?)");
  CHECK(parse_error(dir, minimal_doc(), {"training.lr.x=1"}) ==
        "training.lr.x: unknown key (training.lr is a single value, with no keys inside)");
  CHECK(parse_error(dir, minimal_doc(), {"training.lr"}) ==
        "--set training.lr: expected key.path=value (for example training.lr=0.1)");
  CHECK(parse_error(dir, minimal_doc(), {"=3"}) == "--set =3: expected key.path=value (for example training.lr=0.1)");
  CHECK(parse_error(dir, minimal_doc(), {"training..lr=3"}) ==
        "--set training..lr=3: empty name in key path \"training..lr\"");
  // The value is validated like any other: the message names the key.
  CHECK(parse_error(dir, minimal_doc(), {"training.batch_size=-3"}) ==
        "training.batch_size: must be a positive integer, got -3");
  CHECK(parse_error(dir, minimal_doc(), {"training.lr=fast"}) == "training.lr: expected a number, got \"fast\"");
  json doc = minimal_doc();
  doc["training"] = 5;
  CHECK(parse_error(dir, doc, {"training.lr=0.1"}) == "--set training.lr=0.1: training is 5, not an object");
  // Only the first "=" splits: the value may contain more.
  CHECK(parse_in(dir, minimal_doc(), {"devices.0.name=a=b"}).devices[0].name == "a=b");
}

TEST_CASE("overrides: stream and ScaDLES keys") {
  TempDir dir;
  // Setting a key below an absent optional section creates the section.
  Scenario s = parse_in(dir, minimal_doc(), {"stream.rate=S10"});
  for (const auto& d : s.devices) {
    REQUIRE(d.stream);
    CHECK(d.stream->rate.preset == "S10");
    CHECK(d.stream->rate.mean == 64.0);
  }
  s = parse_in(dir, minimal_doc(), {"stream.rate=S10", "training.mode=scadles", "training.batch_max=64"});
  CHECK(s.training.mode == "scadles");
  CHECK(s.training.batch_max == 64);
  // One device only: it streams, the other does not.
  s = parse_in(dir, minimal_doc(), {"devices.0.stream.rate=5"});
  REQUIRE(s.devices[0].stream);
  CHECK(s.devices[0].stream->rate.value == 5.0);
  CHECK(!s.devices[1].stream);
  s = parse_in(dir, minimal_doc(), {"stream.rate=S1", "devices.1.stream.rate=5", "devices.1.stream.arrivals=poisson"});
  CHECK(s.devices[0].stream->rate.preset == "S1");
  CHECK(s.devices[1].stream->rate.value == 5.0);
  CHECK(s.devices[1].stream->arrivals == "poisson");
  // A rate object, whole or key by key.
  s = parse_in(dir, minimal_doc(), {R"(stream.rate={"dist": "normal", "mean": 10, "std": 2})"});
  CHECK(s.devices[0].stream->rate.dist == "normal");
  s = parse_in(dir, minimal_doc(), {"stream.rate.dist=uniform", "stream.rate.mean=40", "stream.rate.spread=10"});
  CHECK(s.devices[0].stream->rate.dist == "uniform");
  CHECK(s.devices[0].stream->rate.mean == 40.0);
  CHECK(s.devices[0].stream->rate.spread == 10.0);
  CHECK(parse_error(dir, minimal_doc(), {"stream.rate=S10", "stream.rate.mean=40"}) ==
        "--set stream.rate.mean=40: stream.rate is \"S10\", not an object");
  CHECK(parse_error(dir, minimal_doc(), {"stream.rate.dist=list", "stream.rate.values.0=5"}) ==
        "--set stream.rate.values.0=5: set stream.rate.values as a whole, e.g. stream.rate.values=[10, 20]");
  s = parse_in(dir, minimal_doc(), {"stream.rate.dist=list", "stream.rate.values=[10, 20]"});
  CHECK(s.devices[1].stream->rate.values == std::vector<double>{10, 20});
  CHECK(parse_error(dir, minimal_doc(), {"stream.rate.mena=40"}) ==
        "stream.rate.mena: unknown key (did you mean \"mean\"?)");
  CHECK(parse_error(dir, minimal_doc(), {"stream.rate.dist.x=1"}) ==
        "stream.rate.dist.x: unknown key (stream.rate.dist is a single value, with no keys inside)");
  CHECK(parse_error(dir, minimal_doc(), {"devices.0.stream.rate=-5"}) == "devices[0].stream.rate: must be > 0, got -5");
  CHECK(parse_error(dir, minimal_doc(), {"stream.rtae=5"}) == "stream.rtae: unknown key (did you mean \"rate\"?)");
  CHECK(parse_error(dir, minimal_doc(), {"devices.0.stream.rtae=5"}) ==
        "devices[0].stream.rtae: unknown key (did you mean \"rate\"?)");
  // Buffers, whole sections, and null.
  s = parse_in(dir, minimal_doc(),
               {"stream.rate=1", "stream.buffer.policy=drop-oldest", "stream.buffer.capacity_samples=64",
                "stream.sample_bytes=3KiB"});
  CHECK(s.devices[1].stream->buffer.policy == "drop-oldest");
  CHECK(s.devices[1].stream->buffer.capacity_samples == 64);
  CHECK(s.devices[1].stream->sample_bytes == 3072);
  s = parse_in(dir, minimal_doc(), {R"(stream={"rate": 7})", "devices.1.stream=null"});
  CHECK(s.devices[0].stream->rate.value == 7.0);
  CHECK(!s.devices[1].stream);
  s = parse_in(dir, minimal_doc(), {"stream.rate=S10", "stream=null"});
  CHECK(!s.devices[0].stream);
  dir.write("r.csv", "0,5\n");
  s = parse_in(dir, minimal_doc(), {"stream.rate=1", "stream.trace=r.csv"});
  CHECK(s.devices[0].stream->trace == dir / "r.csv");
  s = parse_in(dir, minimal_doc(), {"stream.rate=1", "stream.trace=r.csv", "stream.trace=null"});
  CHECK(s.devices[0].stream->trace.empty());
  // ScaDLES injection, section created on the way.
  s = parse_in(dir, minimal_doc(),
               {"stream.rate=S2", "training.mode=scadles", "training.injection.alpha=0.25",
                "training.injection.beta=0.25", "report.buffer_every_s=5s"});
  REQUIRE(s.training.injection);
  CHECK(s.training.injection->alpha == 0.25);
  CHECK(s.training.injection->beta == 0.25);
  CHECK(s.report.buffer_every_s == 5.0);
  s = parse_in(dir, minimal_doc(), {"stream.rate=S2", "training.mode=scadles", "training.injection=null"});
  CHECK(!s.training.injection);
}

TEST_CASE("overrides: later overrides win, the seed override wins over all") {
  TempDir dir;
  json doc = minimal_doc();
  doc["seed"] = 7;
  CHECK(parse_in(dir, doc).seed == 7);
  CHECK(parse_in(dir, doc, {"seed=5"}).seed == 5);
  CHECK(parse_in(dir, doc, {"seed=5"}, 42).seed == 42);
  CHECK(parse_in(dir, doc, {"training.lr=0.2", "training.lr=0.3"}).training.lr == 0.3);
  CHECK(parse_in(dir, doc, {}, 42).resolved["seed"] == 42);
}

TEST_CASE("overrides: apply_override edits the raw document") {
  json doc = json::object();
  apply_override(doc, "dataset.partition.alpha=0.2");
  apply_override(doc, "devices.0=pi-1");
  apply_override(doc, "devices.0.name=a");
  apply_override(doc, "model.conv_channels=[4,8]");
  CHECK(doc == json::parse(R"({"dataset": {"partition": {"alpha": 0.2}},
                               "devices": [{"host": "pi-1", "name": "a"}],
                               "model": {"conv_channels": [4, 8]}})"));
}

// Found by fuzz/scenario_fuzz: a --set key with a NUL printed as an empty message (what() ends at
// the NUL), and an escape sequence in a key went to the terminal. Every ScenarioError escapes them.
TEST_CASE("overrides: control bytes in a key or value are escaped in the message") {
  using namespace std::string_literals;
  TempDir dir;
  const std::string key = parse_error(dir, minimal_doc(), {"\0ab\x1b[2J=1"s});
  CHECK(key.rfind("\\x00ab\\x1b[2J: unknown key (expected one of: ", 0) == 0);
  const std::string msg = parse_error(dir, minimal_doc(), {"platform=a\tb\x7f"s});
  CHECK(msg.find("a\\x09b\\x7f") != std::string::npos);
  CHECK(msg.find('\t') == std::string::npos);
}
