// Tests of the schema's limits: every size has a documented upper bound, every duration the
// simulator's clock resolution as its floor, every rate the stream maximum; and the checks on
// names that become a folder or CSV cells.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "scenario/schema.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("limits: every integer, integer list and duration key declares its upper limit") {
  for (const auto& k : schema_keys()) {
    CAPTURE(k.path);
    if (k.type == ValueType::Integer && !k.wide_unsigned) {
      // A limit of its own, or a closed range whose top is one.
      CHECK((k.max || k.range.hi));
    }
    if (k.type == ValueType::IntList) {
      CHECK(k.max);
      CHECK((k.max_entries || k.list_size));
    }
    if (is_duration(k)) {
      CHECK(k.max);
      CHECK(!clock_text(k).empty());
    }
    // The documentation shows the limit and its reason.
    if (k.max) CHECK(contains(schema_markdown(), limit_text(k)));
  }
}

TEST_CASE("limits: sizes beyond their limit are input errors naming the limit") {
  TempDir dir;
  auto err = [&](const std::string& set) { return parse_error(dir, minimal_doc(), {set}); };
  CHECK(err("training.batch_size=1e15") ==
        "training.batch_size: must be at most 1000000 (a batch is held in memory at once; far beyond edge training "
        "batches), got 1e+15");
  CHECK(contains(err("model.hidden=[1000000000]"), "model.hidden[0]: must be at most 65536 ("));
  CHECK(contains(err("model.conv_channels=[100000]"), "model.conv_channels[0]: must be at most 4096 ("));
  CHECK(contains(err("dataset.train_samples=1e12"), "dataset.train_samples: must be at most 100000000 ("));
  CHECK(contains(err("eval.test_samples=1e15"), "eval.test_samples: must be at most 100000000 ("));
  CHECK(contains(err("training.staleness_history=1e9"), "training.staleness_history: must be at most 100000 ("));
  CHECK(contains(err("stop.rounds=1e15"), "stop.rounds: must be at most 1000000000000 ("));
  // 200,000 layers: the list's length is bounded too, before anything is built.
  json doc = minimal_doc();
  doc["model"] = {{"hidden", json(std::vector<int>(200000, 8))}};
  CHECK(parse_error(dir, doc) ==
        "model.hidden: at most 64 entries (far deeper than the models edge devices train; each layer holds its own "
        "tensors), got 200000");
  // Each entry of a shape is bounded, and so is their product.
  CHECK(err("dataset.shape=[1000,1000,1000]") ==
        "dataset.shape: 1000000000 values per sample; at most 16777216 (2^24, 64 MiB of fp32) are allowed");
  CHECK(contains(err("dataset.shape=[1,1,100000]"), "dataset.shape[2]: must be at most 65536 ("));
  // Compressor settings, uplink and downlink, before any compressor is built.
  CHECK(contains(err("compression={\"kind\":\"qsgd\",\"levels\":4611686018427387904}"),
                 "compression.levels: must be at most 2147483648 ("));
  CHECK(contains(err("compression={\"downlink\":{\"kind\":\"qsgd\",\"levels\":4611686018427387904}}"),
                 "compression.downlink.levels: must be at most 2147483648 ("));
  CHECK(
      contains(err("compression={\"kind\":\"powersgd\",\"rank\":100000}"), "compression.rank: must be at most 4096 ("));
  // At the limit is fine.
  CHECK(parse_in(dir, minimal_doc(), {"training.batch_size=1000000"}).training.batch_size == 1000000);
  CHECK(parse_in(dir, minimal_doc(), {"dataset.shape=[1,4096,4096]"}).dataset.shape[2] == 4096);
}

TEST_CASE("limits: every duration below the clock resolution is refused with the resolution") {
  TempDir dir;
  size_t checked = 0;
  for (const auto& k : schema_keys()) {
    // Rows inside another key's value (platform.links.<link>.latency) name no real key to set.
    if (!is_duration(k) || k.path.find("[]") != std::string::npos || k.part_of_value) continue;
    CAPTURE(k.path);
    ++checked;
    // Set even where the key does not apply (mode sync and training.window_s): still refused. A key
    // allowed only where it applies is refused there for that reason, so it is set where it applies.
    std::vector<std::string> where;
    if (k.error_unless_applies) where.push_back(k.applies_when->key + "=\"" + k.applies_when->values.at(0) + "\"");
    auto with = [&](const std::string& set) {
      std::vector<std::string> sets = where;
      sets.push_back(k.path + "=" + set);
      return parse_error(dir, minimal_doc(), sets);
    };
    CHECK(with("1e-10") == k.path + ": must be " + clock_text(k) + ", got 1e-10 s");
    CHECK(contains(with("\"0.5us\""), "at least 1us"));
    CHECK(contains(with("2e9"), k.path + ": must be at most 1000000000 s ("));
  }
  CHECK(checked >= 8);
  CHECK(parse_error(dir, minimal_doc(), {"eval.every_s=1e-10"}) ==
        "eval.every_s: must be at least 1us (the simulator's clock resolution), got 1e-10 s");
  // A jitter of 0 means none; a positive one must be reachable.
  json doc = minimal_doc();
  doc["training"] = {{"mode", "async"}, {"start_jitter_s", 0}};
  CHECK(parse_in(dir, doc).training.start_jitter_s == 0);
  doc["training"]["start_jitter_s"] = 1e-9;
  CHECK(parse_error(dir, doc) ==
        "training.start_jitter_s: must be 0 or at least 1us (the simulator's clock resolution), got 1e-09 s");
  CHECK(parse_in(dir, minimal_doc(), {"eval.every_s=1us"}).eval.every_s == 1e-6);
  // Per-device durations and entries of lists are durations too.
  CHECK(contains(parse_error(dir, minimal_doc(), {"stream.rate=5", "devices.0.stream.buffer.window_s=1e-9"}),
                 "devices[0].stream.buffer.window_s: must be at least 1us"));
  CHECK(contains(parse_error(dir, minimal_doc(), {R"(faults={"devices":[{"mtbf_s":1e-9,"mttr_s":1}]})"}),
                 "faults.devices[0].mtbf_s: must be at least 1us"));
}

TEST_CASE("limits: off intervals last at least the clock resolution and end by the longest time") {
  TempDir dir;
  auto err = [&](const std::string& off) {
    return parse_error(dir, minimal_doc(),
                       {"training.round_timeout_s=5", R"(faults={"devices":[{"off_s":)" + off + "}]}"});
  };
  CHECK(
      err("[[10, 10.0000000001]]") ==
      "faults.devices[0].off_s[0]: must last at least 1us (the simulator's clock resolution), got [10, 10.0000000001]");
  CHECK(contains(err("[[10, 20], [20.0000000001, 30]]"), "starts less than 1us (the simulator's clock resolution)"));
  CHECK(err("[[10, 2e9]]") ==
        "faults.devices[0].off_s[0]: on_s must be at most 1e+09 s (the longest simulated time), got [10, 2e+09]");
  CHECK(err("[[10, 20], [20.000001, 30]]") == "<no error>");
}

TEST_CASE("limits: stream rates and their parameters are at most 1e9 samples/s") {
  TempDir dir;
  auto err = [&](const std::string& rate) { return parse_error(dir, minimal_doc(), {"stream.rate=" + rate}); };
  const std::string why = "must be at most 1e+09 samples/s (sample counts over a whole run stay within int64)";
  CHECK(err("1e17") == "stream.rate: " + why + ", got 1e+17");
  CHECK(err(R"({"dist":"constant","value":1e17})") == "stream.rate.value: " + why + ", got 1e+17");
  CHECK(err(R"({"dist":"normal","mean":5,"std":1e300})") == "stream.rate.std: " + why + ", got 1e+300");
  CHECK(err(R"({"dist":"list","values":[5,1e10]})") == "stream.rate.values[1]: " + why + ", got 10000000000.0");
  CHECK(err(R"({"dist":"uniform","mean":9e8,"spread":5e8})") ==
        "stream.rate: mean + spread (the fastest draw) " + why + ", got 1.4e+09");
  CHECK(contains(parse_error(dir, minimal_doc(), {"stream.rate=5", "devices.1.stream.rate=1e12"}),
                 "devices[1].stream.rate: must be at most 1e+09"));
  CHECK(err("1e9") == "<no error>");
}

TEST_CASE("limits: stream rates are at least 1e-9 samples/s (one sample within the longest run)") {
  TempDir dir;
  auto err = [&](const std::string& rate) { return parse_error(dir, minimal_doc(), {"stream.rate=" + rate}); };
  const std::string why = "must be at least 1e-09 samples/s (one sample within the longest run, 10^9 s)";
  CHECK(err("1e-300") == "stream.rate: " + why + ", got 1e-300");
  CHECK(err(R"({"dist":"list","values":[5,1e-12]})") == "stream.rate.values[1]: " + why + ", got 1e-12");
  CHECK(err(R"({"dist":"normal","mean":1e-300,"std":0})") == "stream.rate.mean: " + why + ", got 1e-300");
  CHECK(err(R"({"dist":"normal","mean":5,"std":0})") == "<no error>");  // a spread may be 0
  CHECK(err("1e-9") == "<no error>");
}

TEST_CASE("names: a run name is one folder name") {
  TempDir dir;
  auto err = [&](const json& name) {
    json doc = minimal_doc();
    doc["name"] = name;
    return parse_error(dir, doc);
  };
  CHECK(err("../../../x") ==
        "name: '/' at character 3 is not allowed (a run name is one folder name: letters, digits, '.', '_' and '-'), "
        "got \"../../../x\"");
  CHECK(contains(err(std::string("a\0b", 3)), "name: byte 0x00 at character 2 is not allowed"));
  CHECK(contains(err("x y"), "' ' at character 2 is not allowed"));
  CHECK(err("..") == "name: \"..\" is not a folder name of its own (the results go to results/<name>)");
  CHECK(contains(err("."), "is not a folder name of its own"));
  const std::string message = err(std::string(100'000'000, 'a'));
  CHECK(contains(message, "name: at most 128 characters, got 100000000 (\"aaaa"));
  CHECK(message.size() < 200);
  CHECK(err("run-1.2_b") == "<no error>");
  CHECK(err(std::string(128, 'a')) == "<no error>");
  // The default, the file's stem, is checked the same way.
  CHECK(parse_error(dir, minimal_doc(), {}) == "<no error>");
  CHECK(error_of([&] { parse_scenario(minimal_doc(), dir / "my run.json"); }) ==
        "name: ' ' at character 3 is not allowed (a run name is one folder name: letters, digits, '.', '_' and '-'), "
        "got \"my run\" (this is the default, the scenario file's name; set name)");
}

TEST_CASE("names: device names are printable, bounded and fit a CSV cell unquoted") {
  TempDir dir;
  auto err = [&](const json& name) { return parse_error(dir, minimal_doc(), {"devices.0.name=" + name.dump()}); };
  CHECK(contains(err("a,b"), "devices[0].name: ',' at character 2 is not allowed (a device name is printable ASCII"));
  CHECK(contains(err("a\"b"), "'\"' at character 2 is not allowed"));
  CHECK(contains(err("a\nb"), "byte 0x0a at character 2 is not allowed"));
  CHECK(contains(err(" pi"), "devices[0].name: no space at either end"));
  CHECK(contains(err(std::string(65, 'd')), "devices[0].name: at most 64 characters, got 65"));
  CHECK(err("pi 1 (kitchen)") == "<no error>");
  // The default, the host name, too.
  CHECK(contains(parse_error(dir, minimal_doc(), {"devices.1=bad,host"}),
                 "devices[1].name: ',' at character 4 is not allowed"));
  CHECK(contains(parse_error(dir, minimal_doc(), {"devices.1=bad,host"}), "(this is the default, devices[1].host;"));
}
