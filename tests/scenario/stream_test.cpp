// Tests of the stream section: defaults, the rate forms and presets, buffers, traces, and the
// per-device overrides (merge key by key, device-only streams, opting out).
#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

// minimal_doc() with a stream section.
json with_stream(json stream) {
  json doc = minimal_doc();
  doc["stream"] = std::move(stream);
  return doc;
}

// The error of a scenario whose stream section is `stream`.
std::string stream_error(const TempDir& dir, json stream) { return parse_error(dir, with_stream(std::move(stream))); }

}  // namespace

TEST_CASE("streams: absent or null, no device streams") {
  TempDir dir;
  for (const json& doc : {minimal_doc(), with_stream(nullptr)}) {
    const Scenario s = parse_in(dir, doc);
    for (const auto& d : s.devices) CHECK(!d.stream);
    CHECK(s.resolved["stream"].is_null());
    CHECK(s.resolved["devices"][0]["stream"].is_null());
  }
}

TEST_CASE("streams: a stream section gives every device the defaults") {
  TempDir dir;
  const Scenario s = parse_in(dir, with_stream({{"rate", 10}}));
  REQUIRE(s.devices.size() == 2);
  for (const auto& d : s.devices) {
    REQUIRE(d.stream);
    CHECK(d.stream->rate.dist == "constant");
    CHECK(d.stream->rate.value == 10.0);
    CHECK(d.stream->rate.preset.empty());
    CHECK(d.stream->arrivals == "fluid");
    CHECK(d.stream->trace.empty());
    CHECK(d.stream->buffer.policy == "persistence");
    CHECK(d.stream->buffer.capacity_samples == 0);
    CHECK(d.stream->buffer.window_s == 1.0);
    CHECK(d.stream->sample_bytes == 0);  // the dataset's sample size
  }
  const json expected = json::parse(R"({"rate": {"dist": "constant", "value": 10.0}, "arrivals": "fluid",
      "trace": null, "buffer": {"policy": "persistence", "window_s": 1.0}, "sample_bytes": null,
      "while_off": "buffer"})");
  CHECK(s.resolved["stream"] == expected);
  CHECK(s.resolved["devices"][0]["stream"] == expected);
  CHECK(s.resolved["devices"][1]["stream"] == expected);
}

TEST_CASE("streams: rate presets resolve into their distributions") {
  TempDir dir;
  struct Case {
    const char* name;
    const char* dist;
    double mean, spread, std;
  };
  for (const Case& c : {Case{"S1", "uniform", 38, 24, 0}, Case{"S2", "uniform", 300, 112, 0},
                        Case{"S10", "normal", 64, 0, 24}, Case{"S20", "normal", 256, 0, 28}}) {
    CAPTURE(c.name);
    const Scenario s = parse_in(dir, with_stream({{"rate", c.name}}));
    const RateSpec& r = s.devices[1].stream->rate;
    CHECK(r.preset == c.name);
    CHECK(r.dist == c.dist);
    CHECK(r.mean == c.mean);
    CHECK(r.spread == c.spread);
    CHECK(r.std == c.std);
    CHECK(s.resolved["stream"]["rate"] == c.name);  // the resolved document keeps the name
  }
  CHECK(stream_error(dir, {{"rate", "S3"}}) == "stream.rate: unknown preset \"S3\" (presets: S1, S2, S10, S20)");
  CHECK(stream_error(dir, {{"rate", "s10"}}) ==
        "stream.rate: unknown preset \"s10\" (presets: S1, S2, S10, S20; did you mean \"S10\"?)");
  CHECK(stream_error(dir, {{"rate", ""}}) == "stream.rate: unknown preset \"\" (presets: S1, S2, S10, S20)");
  CHECK(stream_error(dir, {{"rate", "10"}}) ==
        "stream.rate: unknown preset \"10\" (presets: S1, S2, S10, S20; a constant rate is a number, not a string)");
}

TEST_CASE("streams: the rate forms") {
  TempDir dir;
  auto rate_of = [&](json rate) {
    return parse_in(dir, with_stream({{"rate", std::move(rate)}})).devices[0].stream->rate;
  };
  RateSpec r = rate_of(2.5);
  CHECK(r.dist == "constant");
  CHECK(r.value == 2.5);
  r = rate_of({{"dist", "constant"}, {"value", 10}});
  CHECK(r.dist == "constant");
  CHECK(r.value == 10.0);
  r = rate_of({{"dist", "uniform"}, {"mean", 38}, {"spread", 24}});
  CHECK(r.dist == "uniform");
  CHECK(r.mean == 38.0);
  CHECK(r.spread == 24.0);
  CHECK(r.preset.empty());
  CHECK(rate_of({{"dist", "uniform"}, {"mean", 38}, {"spread", 0}}).spread == 0.0);
  r = rate_of({{"dist", "normal"}, {"mean", 64}, {"std", 24}});
  CHECK(r.dist == "normal");
  CHECK(r.mean == 64.0);
  CHECK(r.std == 24.0);
  CHECK(rate_of({{"dist", "normal"}, {"mean", 64}, {"std", 0}}).std == 0.0);
  r = rate_of({{"dist", "list"}, {"values", {5, 10.5, 20}}});
  CHECK(r.dist == "list");
  CHECK(r.values == std::vector<double>{5, 10.5, 20});
  // Resolved: the object form, every parameter a number.
  const Scenario s = parse_in(dir, with_stream({{"rate", 3}}));
  CHECK(s.resolved["stream"]["rate"] == json::parse(R"({"dist": "constant", "value": 3.0})"));
  CHECK(s.resolved["stream"]["rate"]["value"].is_number_float());
}

TEST_CASE("streams: rate errors name the path") {
  TempDir dir;
  auto err = [&](json rate) { return stream_error(dir, {{"rate", std::move(rate)}}); };
  CHECK(err(-5) == "stream.rate: must be > 0, got -5");
  CHECK(err(0) == "stream.rate: must be > 0, got 0");
  CHECK(err(true) ==
        "stream.rate: expected a rate: a number of samples/s, a preset (S1, S2, S10, S20) or an object "
        "{\"dist\": ...}, got true");
  CHECK(err(json::array({1, 2})).rfind("stream.rate: expected a rate: ", 0) == 0);
  CHECK(err({{"dist", "uniform"}, {"mean", 38}, {"spread", 40}}) ==
        "stream.rate.spread: must be < stream.rate.mean (38), got 40");
  CHECK(err({{"dist", "uniform"}, {"mean", 38}, {"spread", 38}}) ==
        "stream.rate.spread: must be < stream.rate.mean (38), got 38");
  CHECK(err({{"dist", "uniform"}, {"mean", 38}, {"spread", -1}}) == "stream.rate.spread: must be >= 0, got -1");
  CHECK(err({{"dist", "uniform"}, {"mean", 0}, {"spread", 0}}) == "stream.rate.mean: must be > 0, got 0");
  CHECK(err({{"dist", "uniform"}, {"mean", 38}, {"sprad", 2}}) ==
        "stream.rate.sprad: unknown key (did you mean \"spread\"?)");
  CHECK(err({{"dist", "uniform"}, {"zzz", 1}}) ==
        "stream.rate.zzz: unknown key (expected one of: dist, value, mean, spread, std, values)");
  CHECK(err({{"dist", "uniform"}, {"mean", 38}, {"std", 2}}) ==
        "stream.rate.std: not used by dist uniform (dist uniform takes mean, spread)");
  CHECK(err({{"dist", "uniform"}, {"mean", 38}}) ==
        "stream.rate.spread: required key is missing (dist uniform takes mean, spread)");
  CHECK(err({{"mean", 38}}) == "stream.rate.dist: required key is missing (one of constant, uniform, normal, list)");
  CHECK(err({{"dist", "unifrom"}, {"mean", 38}}) ==
        "stream.rate.dist: must be one of constant, uniform, normal, list; got \"unifrom\" (did you mean "
        "\"uniform\"?)");
  CHECK(err({{"dist", 3}}) == "stream.rate.dist: must be one of constant, uniform, normal, list; got 3");
  CHECK(err({{"dist", "normal"}, {"mean", -1}, {"std", 2}}) == "stream.rate.mean: must be > 0, got -1");
  CHECK(err({{"dist", "normal"}, {"mean", 64}, {"std", -1}}) == "stream.rate.std: must be >= 0, got -1");
  CHECK(err({{"dist", "normal"}, {"mean", "64"}, {"std", 1}}) == "stream.rate.mean: expected a number, got \"64\"");
  CHECK(err({{"dist", "constant"}, {"value", 0}}) == "stream.rate.value: must be > 0, got 0");
  CHECK(err({{"dist", "list"}, {"values", json::array()}}) == "stream.rate.values: must not be empty");
  CHECK(err({{"dist", "list"}, {"values", {1, 0}}}) == "stream.rate.values[1]: must be > 0, got 0");
  CHECK(err({{"dist", "list"}, {"values", {1, "x"}}}) == "stream.rate.values[1]: expected a number, got \"x\"");
  CHECK(err({{"dist", "list"}, {"values", 5}}) == "stream.rate.values: expected a list of numbers > 0, got 5");
  // Required unless a trace gives the rate; null counts as not given.
  // Checked per device, once its own keys are merged over the defaults (a device may set its own).
  const std::string none = "devices[0].stream.rate: required unless devices[0].stream.trace is set" +
                           std::string(" (device \"pi-1\" sets no rate and the defaults in stream give none)");
  CHECK(stream_error(dir, json::object()) == none);
  CHECK(err(nullptr) == none);
}

TEST_CASE("streams: arrivals, buffer and sample size") {
  TempDir dir;
  json stream = {{"rate", 10},
                 {"arrivals", "poisson"},
                 {"buffer", {{"policy", "truncation"}, {"window_s", "500ms"}}},
                 {"sample_bytes", "3KiB"}};
  Scenario s = parse_in(dir, with_stream(stream));
  const StreamSpec& st = *s.devices[0].stream;
  CHECK(st.arrivals == "poisson");
  CHECK(st.buffer.policy == "truncation");
  CHECK(st.buffer.window_s == doctest::Approx(0.5));
  CHECK(st.buffer.capacity_samples == 0);
  CHECK(st.sample_bytes == 3072);
  CHECK(s.resolved["stream"]["sample_bytes"] == 3072);
  CHECK(s.resolved["stream"]["sample_bytes"].is_number_integer());
  stream["sample_bytes"] = "784B";
  CHECK(parse_in(dir, with_stream(stream)).devices[1].stream->sample_bytes == 784);

  // Capacity: required by the drop policies, ignored (0) by the others.
  for (const char* policy : {"drop-oldest", "drop-newest"}) {
    CAPTURE(policy);
    CHECK(stream_error(dir, {{"rate", 1}, {"buffer", {{"policy", policy}}}}) ==
          "devices[0].stream.buffer.capacity_samples: required when devices[0].stream.buffer.policy is drop-oldest or "
          "drop-newest (device \"pi-1\" sets no capacity_samples and the defaults in stream give none)");
    s = parse_in(dir, with_stream({{"rate", 1}, {"buffer", {{"policy", policy}, {"capacity_samples", 500}}}}));
    CHECK(s.devices[0].stream->buffer.policy == policy);
    CHECK(s.devices[0].stream->buffer.capacity_samples == 500);
    CHECK(s.resolved["stream"]["buffer"]["capacity_samples"] == 500);
  }
  s = parse_in(dir, with_stream({{"rate", 1}, {"buffer", {{"capacity_samples", 500}}}}));
  CHECK(s.devices[0].stream->buffer.capacity_samples == 0);
  CHECK(!s.resolved["stream"]["buffer"].contains("capacity_samples"));
  CHECK(stream_error(dir, {{"rate", 1}, {"buffer", {{"policy", "drop-oldest"}, {"capacity_samples", 0}}}}) ==
        "stream.buffer.capacity_samples: must be a positive integer, got 0");
  // Checked even where ignored, so garbage does not hide.
  CHECK(stream_error(dir, {{"rate", 1}, {"buffer", {{"capacity_samples", "lots"}}}}) ==
        "stream.buffer.capacity_samples: expected a positive integer, got \"lots\"");

  CHECK(stream_error(dir, {{"rate", 1}, {"arrivals", "burst"}}) ==
        "stream.arrivals: must be one of fluid, poisson; got \"burst\"");
  CHECK(stream_error(dir, {{"rate", 1}, {"buffer", {{"policy", "drop_oldest"}}}}) ==
        "stream.buffer.policy: must be one of persistence, truncation, drop-oldest, drop-newest; got "
        "\"drop_oldest\" (did you mean \"drop-oldest\"?)");
  CHECK(stream_error(dir, {{"rate", 1}, {"buffer", {{"window_s", 0}}}}) ==
        "stream.buffer.window_s: must be > 0 s, got 0");
  CHECK(stream_error(dir, {{"rate", 1}, {"sample_bytes", 0}}) == "stream.sample_bytes: must be >= 1 B, got 0");
  CHECK(stream_error(dir, {{"rate", 1}, {"sample_bytes", "1.5B"}}) ==
        "stream.sample_bytes: must be a whole number of B, got \"1.5B\"");
  CHECK(stream_error(dir, {{"rtae", 1}}) == "stream.rtae: unknown key (did you mean \"rate\"?)");
  CHECK(stream_error(dir, {{"rate", 1}, {"buffer", {{"polcy", "truncation"}}}}) ==
        "stream.buffer.polcy: unknown key (did you mean \"policy\"?)");
  CHECK(stream_error(dir, 5) ==
        "stream: expected an object (with keys trace, rate, arrivals, buffer, sample_bytes, while_off) or null, got 5");
  CHECK(stream_error(dir, {{"rate", 1}, {"buffer", 3}}) ==
        "stream.buffer: expected an object (with keys policy, capacity_samples, window_s) or null, got 3");
  json doc = minimal_doc();
  doc["streams"] = {{"rate", 1}};
  CHECK(parse_error(dir, doc) == "streams: unknown key (did you mean \"stream\"?)");
}

TEST_CASE("streams: per-device overrides merge key by key") {
  TempDir dir;
  json doc = with_stream({{"rate", "S10"},
                          {"arrivals", "poisson"},
                          {"buffer", {{"policy", "drop-oldest"}, {"capacity_samples", 100}}},
                          {"sample_bytes", 784}});
  doc["devices"] = json::parse(R"([
    "pi-1",
    {"host": "pi-2", "stream": {"rate": 5, "buffer": {"policy": "drop-newest"}}},
    {"host": "pi-3", "stream": {"buffer": {"capacity_samples": 7}}},
    {"host": "pi-4", "stream": {"rate": {"dist": "uniform", "mean": 38, "spread": 2}, "arrivals": "fluid"}},
    {"host": "pi-5", "stream": null}])");
  const Scenario s = parse_in(dir, doc);
  REQUIRE(s.devices.size() == 5);
  // pi-1: the global stream as is.
  const StreamSpec& a = *s.devices[0].stream;
  CHECK(a.rate.preset == "S10");
  CHECK(a.arrivals == "poisson");
  CHECK(a.buffer.policy == "drop-oldest");
  CHECK(a.buffer.capacity_samples == 100);
  CHECK(a.sample_bytes == 784);
  // pi-2: own rate and policy, inherited arrivals, capacity and sample size.
  const StreamSpec& b = *s.devices[1].stream;
  CHECK(b.rate.dist == "constant");
  CHECK(b.rate.value == 5.0);
  CHECK(b.rate.preset.empty());
  CHECK(b.arrivals == "poisson");
  CHECK(b.buffer.policy == "drop-newest");
  CHECK(b.buffer.capacity_samples == 100);
  CHECK(b.sample_bytes == 784);
  // pi-3: only the capacity inside the buffer section; the policy is inherited.
  const StreamSpec& c = *s.devices[2].stream;
  CHECK(c.buffer.policy == "drop-oldest");
  CHECK(c.buffer.capacity_samples == 7);
  CHECK(c.rate.preset == "S10");
  // pi-4: a rate object replaces the inherited rate as a whole (no "std" left over).
  const StreamSpec& d = *s.devices[3].stream;
  CHECK(d.rate.dist == "uniform");
  CHECK(d.rate.mean == 38.0);
  CHECK(d.rate.spread == 2.0);
  CHECK(d.rate.std == 0.0);
  CHECK(d.arrivals == "fluid");
  // pi-5: opted out (a mixed fleet).
  CHECK(!s.devices[4].stream);
  // The resolved document holds every device's merged stream.
  CHECK(s.resolved["devices"][1]["stream"] == json::parse(R"({"rate": {"dist": "constant", "value": 5.0},
      "arrivals": "poisson", "trace": null, "sample_bytes": 784, "while_off": "buffer",
      "buffer": {"policy": "drop-newest", "capacity_samples": 100, "window_s": 1.0}})"));
  CHECK(s.resolved["devices"][4]["stream"].is_null());
  CHECK(s.resolved["stream"]["rate"] == "S10");

  // A capacity ignored globally (persistence) is still inherited by a device that needs it.
  doc = with_stream({{"rate", 1}, {"buffer", {{"capacity_samples", 64}}}});
  doc["devices"] = json::parse(R"(["pi-1", {"host": "pi-2", "stream": {"buffer": {"policy": "drop-oldest"}}}])");
  Scenario t = parse_in(dir, doc);
  CHECK(t.devices[0].stream->buffer.capacity_samples == 0);
  CHECK(t.devices[1].stream->buffer.capacity_samples == 64);
}

TEST_CASE("streams: per-device errors name the device entry") {
  TempDir dir;
  json doc = with_stream({{"rate", 10}});
  auto device_error = [&](json stream) {
    doc["devices"] = json::array({"pi-1", "pi-2", {{"host", "pi-3"}, {"stream", std::move(stream)}}});
    return parse_error(dir, doc);
  };
  CHECK(device_error({{"rate", -5}}) == "devices[2].stream.rate: must be > 0, got -5");
  CHECK(device_error({{"rate", {{"dist", "uniform"}, {"mean", 38}, {"spread", 40}}}}) ==
        "devices[2].stream.rate.spread: must be < devices[2].stream.rate.mean (38), got 40");
  CHECK(device_error({{"rate", "S3"}}) == "devices[2].stream.rate: unknown preset \"S3\" (presets: S1, S2, S10, S20)");
  CHECK(device_error({{"buffer", {{"policy", "drop-newest"}}}}) ==
        "devices[2].stream.buffer.capacity_samples: required when devices[2].stream.buffer.policy is drop-oldest or "
        "drop-newest (device \"pi-3\" sets no capacity_samples and the defaults in stream give none)");
  CHECK(device_error({{"arrivals", "bursty"}}) ==
        "devices[2].stream.arrivals: must be one of fluid, poisson; got \"bursty\"");
  CHECK(device_error({{"rtae", 5}}) == "devices[2].stream.rtae: unknown key (did you mean \"rate\"?)");
  CHECK(device_error({{"buffer", {{"polcy", "truncation"}}}}) ==
        "devices[2].stream.buffer.polcy: unknown key (did you mean \"policy\"?)");
  CHECK(device_error(7) ==
        "devices[2].stream: expected an object (with keys trace, rate, arrivals, buffer, sample_bytes, while_off) or "
        "null, got 7");
  // A device's own null rate leaves it with neither rate nor trace.
  CHECK(device_error({{"rate", nullptr}}) ==
        "devices[2].stream.rate: required unless devices[2].stream.trace is set (device \"pi-3\" sets no rate and the "
        "defaults in stream give none)");
  // The global section is checked first, under its own path.
  doc = with_stream({{"rate", -1}});
  doc["devices"] = json::parse(R"([{"host": "pi-1", "stream": {"rate": 5}}])");
  CHECK(parse_error(dir, doc) == "stream.rate: must be > 0, got -1");
}

TEST_CASE("streams: a device stream without a global stream") {
  TempDir dir;
  json doc = minimal_doc();
  doc["devices"] =
      json::parse(R"(["pi-1", {"host": "pi-2", "stream": {"rate": "S1", "buffer": {"policy": "truncation"}}}])");
  const Scenario s = parse_in(dir, doc);
  CHECK(!s.devices[0].stream);
  REQUIRE(s.devices[1].stream);
  CHECK(s.devices[1].stream->rate.preset == "S1");
  CHECK(s.devices[1].stream->rate.mean == 38.0);
  CHECK(s.devices[1].stream->arrivals == "fluid");  // the global defaults
  CHECK(s.devices[1].stream->buffer.policy == "truncation");
  CHECK(s.devices[1].stream->buffer.window_s == 1.0);
  CHECK(s.resolved["stream"].is_null());
  CHECK(s.resolved["devices"][0]["stream"].is_null());

  doc["devices"][1]["stream"] = {{"arrivals", "poisson"}};
  CHECK(parse_error(dir, doc) ==
        "devices[1].stream.rate: required unless devices[1].stream.trace is set (device \"pi-2\" sets no rate and the "
        "defaults in stream give none)");
  doc["devices"][1]["stream"] = json::object();
  CHECK(parse_error(dir, doc) ==
        "devices[1].stream.rate: required unless devices[1].stream.trace is set (device \"pi-2\" sets no rate and the "
        "defaults in stream give none)");
}

TEST_CASE("streams: trace paths resolve against the scenario file") {
  TempDir dir;
  dir.write("traces/day.csv", "time_s,rate\n0,10\n60,20\n");
  dir.write("traces/night.csv", "0,1\n");
  const auto day = dir / "traces/day.csv";
  const auto night = dir / "traces/night.csv";

  // A trace makes the rate optional, and takes precedence over it.
  Scenario s = parse_in(dir, with_stream({{"trace", "traces/day.csv"}}));
  CHECK(s.devices[0].stream->trace == day);
  CHECK(s.devices[0].stream->trace.is_absolute());
  CHECK(s.resolved["stream"]["trace"] == day.string());
  CHECK(s.resolved["stream"]["rate"].is_null());
  s = parse_in(dir, with_stream({{"trace", "traces/day.csv"}, {"rate", "S2"}}));
  CHECK(s.devices[0].stream->trace == day);
  CHECK(s.devices[0].stream->rate.preset == "S2");  // kept, but the trace wins

  // In a scenario file in a sub-folder, relative to that folder.
  const auto file = dir.write("sub/scen.json", R"({"platform": "../platform.xml", "server": "srv",
      "devices": ["pi-1", {"host": "pi-2", "stream": {"trace": "../traces/night.csv"}}],
      "dataset": {"name": "synthetic"}, "stop": {"rounds": 1}, "stream": {"trace": "../traces/day.csv"}})");
  s = load_scenario(file);
  CHECK(s.devices[0].stream->trace == day);
  CHECK(s.devices[1].stream->trace == night);

  CHECK(stream_error(dir, {{"trace", "missing.csv"}}) ==
        "stream.trace: file not found: " + (dir / "missing.csv").string());
  CHECK(stream_error(dir, {{"trace", "traces"}}) ==
        "stream.trace: expected a file, found a directory: " + (dir / "traces").string());
  json doc = minimal_doc();
  doc["devices"] = json::parse(R"([{"host": "pi-1", "stream": {"trace": "nope.csv"}}])");
  CHECK(parse_error(dir, doc) == "devices[0].stream.trace: file not found: " + (dir / "nope.csv").string());

  // A device's own rate drops the inherited trace; its own trace (even null) is its own.
  doc = with_stream({{"trace", "traces/day.csv"}});
  doc["devices"] = json::parse(R"([
    "pi-1",
    {"host": "pi-2", "stream": {"rate": 5}},
    {"host": "pi-3", "stream": {"rate": 5, "trace": "traces/night.csv"}},
    {"host": "pi-4", "stream": {"arrivals": "poisson"}}])");
  s = parse_in(dir, doc);
  CHECK(s.devices[0].stream->trace == day);
  CHECK(s.devices[1].stream->trace.empty());
  CHECK(s.devices[1].stream->rate.value == 5.0);
  CHECK(s.devices[2].stream->trace == night);
  CHECK(s.devices[3].stream->trace == day);
  CHECK(s.devices[3].stream->arrivals == "poisson");
  doc["devices"][3]["stream"] = {{"trace", nullptr}};  // no trace and no rate left
  CHECK(parse_error(dir, doc) ==
        "devices[3].stream.rate: required unless devices[3].stream.trace is set (device \"pi-4\" sets no rate and the "
        "defaults in stream give none)");
}

TEST_CASE("streams: while_off, globally and per device") {
  TempDir dir;
  // Default: what arrives while a device is off is buffered as usual.
  Scenario s = parse_in(dir, with_stream({{"rate", 10}}));
  CHECK(s.devices[0].stream->while_off == "buffer");
  CHECK(s.resolved["stream"]["while_off"] == "buffer");

  json doc = with_stream({{"rate", 10}, {"while_off", "lose"}});
  doc["devices"] = json::parse(R"([
    "pi-1",
    {"host": "pi-2", "stream": {"while_off": "buffer"}},
    {"host": "pi-3", "stream": {"rate": 5}}])");
  s = parse_in(dir, doc);
  CHECK(s.devices[0].stream->while_off == "lose");
  CHECK(s.devices[1].stream->while_off == "buffer");  // its own
  CHECK(s.devices[1].stream->rate.value == 10.0);     // the rest inherited
  CHECK(s.devices[2].stream->while_off == "lose");    // inherited
  CHECK(s.resolved["devices"][1]["stream"]["while_off"] == "buffer");
  CHECK(s.resolved["devices"][2]["stream"]["while_off"] == "lose");

  // A device-only stream gets the global default.
  doc = minimal_doc();
  doc["devices"] = json::parse(R"(["pi-1", {"host": "pi-2", "stream": {"rate": 5, "while_off": "lose"}}])");
  s = parse_in(dir, doc);
  CHECK(!s.devices[0].stream);
  CHECK(s.devices[1].stream->while_off == "lose");
  CHECK(describe(s).find("stream    1 of 2 devices: rate 5 samples/s, fluid arrivals, buffer persistence, arrivals "
                         "lost while off\n") != std::string::npos);

  CHECK(stream_error(dir, {{"rate", 1}, {"while_off", "drop"}}) ==
        "stream.while_off: must be one of buffer, lose; got \"drop\"");
  doc["devices"][1]["stream"]["while_off"] = "loose";
  CHECK(parse_error(dir, doc) ==
        "devices[1].stream.while_off: must be one of buffer, lose; got \"loose\" (did you mean \"lose\"?)");
  CHECK(
      parse_in(dir, minimal_doc(), {"stream.rate=5", "devices.1.stream.while_off=lose"}).devices[1].stream->while_off ==
      "lose");
}
