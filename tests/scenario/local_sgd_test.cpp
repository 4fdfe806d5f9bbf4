// Tests of the local-SGD training mode (training.mode local-sgd and its settings), of the
// staleness keys it shares with mode async, and of the synchronous round timeout.
#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

// minimal_doc() with these training settings.
json with_training(json training) {
  json doc = minimal_doc();
  doc["training"] = std::move(training);
  return doc;
}

}  // namespace

TEST_CASE("local-sgd: defaults") {
  TempDir dir;
  const Scenario s = parse_in(dir, with_training({{"mode", "local-sgd"}}));
  CHECK(s.training.mode == "local-sgd");
  CHECK(s.training.local_steps == 5);
  CHECK(s.training.aggregation == "sync");
  CHECK(s.training.server_lr == 1.0);
  CHECK(!s.training.round_timeout_s);  // wait for every device
  CHECK(s.training.lr == 0.05);        // the local step size
  const json& t = s.resolved["training"];
  CHECK(t["local_steps"] == 5);
  CHECK(t["aggregation"] == "sync");
  CHECK(t["server_lr"] == 1.0);
  CHECK(t["round_timeout_s"].is_null());
  // The staleness keys apply to local-sgd too (they matter with aggregation async).
  CHECK(t["staleness_lr"] == "none");
  CHECK(t["max_staleness"].is_null());
  CHECK(t["start_jitter_s"] == 0.0);
  CHECK(t["staleness_history"] == 1000);
  CHECK(!t.contains("window_s"));  // scadles only
}

TEST_CASE("local-sgd: settings") {
  TempDir dir;
  const Scenario s = parse_in(dir, with_training(json::parse(R"({"mode": "local-sgd", "local_steps": 20,
      "aggregation": "async", "server_lr": 0.5, "lr": 0.1, "staleness_lr": "inverse", "max_staleness": 4,
      "start_jitter_s": "2s", "staleness_history": 10})")));
  CHECK(s.training.local_steps == 20);
  CHECK(s.training.aggregation == "async");
  CHECK(s.training.server_lr == 0.5);
  CHECK(s.training.lr == 0.1);
  CHECK(s.training.staleness_lr == "inverse");
  CHECK(s.training.max_staleness == 4);
  CHECK(s.training.start_jitter_s == 2.0);
  CHECK(s.training.staleness_history == 10);
  CHECK(s.training.local_steps == s.resolved["training"]["local_steps"].get<int64_t>());
  // The same keys in mode async.
  const Scenario a =
      parse_in(dir, with_training({{"mode", "async"}, {"staleness_lr", "adacomp"}, {"max_staleness", 8}}));
  CHECK(a.training.staleness_lr == "adacomp");
  CHECK(a.training.max_staleness == 8);
  CHECK(!a.resolved["training"].contains("local_steps"));
}

TEST_CASE("local-sgd: errors") {
  TempDir dir;
  auto err = [&](const std::string& key, json value) {
    json training = {{"mode", "local-sgd"}};
    training[key] = std::move(value);
    return parse_error(dir, with_training(training));
  };
  CHECK(err("local_steps", 0) == "training.local_steps: must be a positive integer, got 0");
  CHECK(err("local_steps", 2.5) == "training.local_steps: expected a positive integer, got 2.5");
  CHECK(err("aggregation", "asynch") ==
        "training.aggregation: must be one of sync, async; got \"asynch\" (did you mean \"async\"?)");
  CHECK(err("server_lr", 0) == "training.server_lr: must be > 0, got 0");
  CHECK(err("server_lr", "1") == "training.server_lr: expected a number, got \"1\"");
  CHECK(err("staleness_lr", "inverted") ==
        "training.staleness_lr: must be one of none, inverse, adacomp; got \"inverted\" (did you mean \"inverse\"?)");
  CHECK(parse_error(dir, with_training({{"mode", "local_sgd"}})) ==
        "training.mode: must be one of sync, scadles, async, local-sgd; got \"local_sgd\" (did you mean "
        "\"local-sgd\"?)");
}

TEST_CASE("local-sgd: its keys are ignored in other modes, but checked") {
  TempDir dir;
  const Scenario s = parse_in(dir, with_training({{"local_steps", 3}, {"aggregation", "async"}, {"server_lr", 2}}));
  CHECK(s.training.mode == "sync");
  CHECK(s.training.local_steps == 5);  // the struct's default
  CHECK(s.training.aggregation == "sync");
  CHECK(!s.resolved["training"].contains("local_steps"));
  CHECK(!s.resolved["training"].contains("aggregation"));
  CHECK(!s.resolved["training"].contains("server_lr"));
  CHECK(!s.resolved["training"].contains("staleness_lr"));
  CHECK(parse_error(dir, with_training({{"local_steps", "many"}})) ==
        "training.local_steps: expected a positive integer, got \"many\"");
}

TEST_CASE("round timeout: synchronous modes only") {
  TempDir dir;
  for (const char* mode : {"sync", "scadles", "local-sgd"}) {
    CAPTURE(mode);
    json doc = with_training({{"mode", mode}, {"round_timeout_s", "30s"}});
    doc["stream"] = {{"rate", "S10"}};  // scadles needs streams
    const Scenario s = parse_in(dir, doc);
    REQUIRE(s.training.round_timeout_s);
    CHECK(*s.training.round_timeout_s == 30.0);
    CHECK(s.resolved["training"]["round_timeout_s"] == 30.0);
  }
  // Async has no rounds: ignored.
  const Scenario a = parse_in(dir, with_training({{"mode", "async"}, {"round_timeout_s", 30}}));
  CHECK(!a.training.round_timeout_s);
  CHECK(!a.resolved["training"].contains("round_timeout_s"));
  // Null: wait for every device.
  const Scenario n = parse_in(dir, with_training({{"round_timeout_s", nullptr}}));
  CHECK(!n.training.round_timeout_s);
  CHECK(n.resolved["training"]["round_timeout_s"].is_null());
  CHECK(parse_error(dir, with_training({{"round_timeout_s", 0}})) == "training.round_timeout_s: must be > 0 s, got 0");
  CHECK(parse_error(dir, with_training({{"round_timeout_s", "-1s"}})) ==
        "training.round_timeout_s: must be > 0 s, got \"-1s\"");
  CHECK(parse_error(dir, with_training({{"round_timeout_s", "soon"}})) ==
        "training.round_timeout_s: cannot read \"soon\" as a duration (use a number of seconds or a unit: us, ms, s, "
        "min, h)");
}

TEST_CASE("local-sgd: overrides and describe") {
  TempDir dir;
  Scenario s = parse_in(dir, minimal_doc(),
                        {"training.mode=local-sgd", "training.local_steps=10", "training.aggregation=async",
                         "training.server_lr=0.7", "training.round_timeout_s=1min"});
  CHECK(s.training.local_steps == 10);
  CHECK(s.training.aggregation == "async");
  CHECK(s.training.server_lr == 0.7);
  CHECK(s.training.round_timeout_s == 60.0);
  std::string d = describe(s);
  CHECK(d.find("training  local-sgd, batch 32, lr 0.05, momentum 0, weight decay 0, round timeout 60 s\n") !=
        std::string::npos);
  CHECK(d.find("local-sgd 10 local steps per push, aggregation async, server lr 0.7\n") != std::string::npos);
  CHECK(
      d.find(
          "async     staleness lr none, max staleness none, history 1000 updates, start jitter 0 s, buffer 1 push\n") !=
      std::string::npos);
  // With aggregation sync there are no staleness settings to show.
  d = describe(parse_in(dir, with_training({{"mode", "local-sgd"}})));
  CHECK(d.find("local-sgd 5 local steps per push, aggregation sync, server lr 1\n") != std::string::npos);
  CHECK(d.find("async     ") == std::string::npos);
}

TEST_CASE("buffer_size and staleness_policy: defaults, and where they are allowed") {
  TempDir dir;
  const Scenario a = parse_in(dir, with_training({{"mode", "async"}}));
  CHECK(a.training.buffer_size == 1);
  CHECK(a.training.staleness_policy == "drop");
  const Scenario f = parse_in(dir, with_training({{"mode", "local-sgd"},
                                                  {"aggregation", "async"},
                                                  {"buffer_size", 10},
                                                  {"staleness_policy", "hold"},
                                                  {"max_staleness", 2}}));
  CHECK(f.training.buffer_size == 10);
  CHECK(f.training.staleness_policy == "hold");
  auto err = [&](json training) { return parse_error(dir, with_training(std::move(training))); };
  CHECK(err({{"buffer_size", 4}}) ==
        "training.buffer_size: allowed only when training.mode is async or local-sgd (here training.mode is \"sync\")");
  CHECK(err({{"mode", "local-sgd"}, {"buffer_size", 4}}) ==
        "training.buffer_size: needs pushes applied on arrival (local-sgd with aggregation async)");
  CHECK(err({{"mode", "local-sgd"}, {"staleness_policy", "hold"}, {"max_staleness", 1}}) ==
        "training.staleness_policy: hold needs pushes applied on arrival (local-sgd with aggregation async)");
  CHECK(err({{"mode", "async"}, {"staleness_policy", "hold"}}) ==
        "training.staleness_policy: hold needs training.max_staleness (the bound it holds to)");
  CHECK(err({{"mode", "async"}, {"buffer_size", 0}}) == "training.buffer_size: must be a positive integer, got 0");
  CHECK(err({{"mode", "async"}, {"staleness_policy", "wait"}}) ==
        "training.staleness_policy: must be one of drop, hold; got \"wait\"");
}
