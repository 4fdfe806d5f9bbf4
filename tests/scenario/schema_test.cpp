// Tests of the schema table itself: it is consistent (conditions and defaults refer to keys
// declared before them, defaults pass their own checks) and the generated Markdown documents
// every key.
#include "scenario/schema.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "helpers.hpp"
#include "scenario/validate.hpp"

using namespace edgetrain::scenario;
using edgetrain::scenario::testing::error_of;

TEST_CASE("schema: markdown documents every key and rule") {
  const std::string md = schema_markdown();
  CHECK(md.rfind("| Key | Type / unit | Default | Description |\n|---|---|---|---|\n", 0) == 0);
  for (const auto& k : schema_keys()) {
    CAPTURE(k.path);
    CHECK(md.find("| `" + k.path + "` | ") != std::string::npos);
  }
  for (const auto& r : schema_rules()) CHECK(md.find(r.description) != std::string::npos);
  // One table row per key.
  size_t rows = 0;
  for (size_t pos = 0; (pos = md.find("\n| `", pos)) != std::string::npos; ++pos) ++rows;
  CHECK(rows == schema_keys().size());
}

TEST_CASE("schema: markdown rows carry type, default, range and choices") {
  const std::string md = schema_markdown();
  CHECK(md.find("| `training.lr` | number | `0.05` | Learning rate. Must be > 0. |") != std::string::npos);
  CHECK(md.find("| `training.momentum` | number | `0.0` | SGD momentum. Must be in [0, 1). |") != std::string::npos);
  CHECK(md.find("| `training.batch_size` | integer | `32` | Samples per device per step. Must be a positive "
                "integer, at most 1000000 (a batch is held in memory at once; far beyond edge training batches). |") !=
        std::string::npos);
  CHECK(md.find("| `stop.rounds` | integer or null | `null` (no limit) |") != std::string::npos);
  CHECK(md.find("| `eval.every_s` | duration (s) | `5.0` |") != std::string::npos);
  CHECK(md.find("One of `mlp`, `cnn`, `torchscript`, `resnet18`,") != std::string::npos);
  CHECK(md.find("| `platform` | path (file) or object | required |") != std::string::npos);
  CHECK(md.find("| `dataset.path` | path (directory) | `\"/usr/share/datasets/fashion-mnist\"` if dataset.name is "
                "fashion-mnist; required if dataset.name is mnist, images, leaf or fedscale |") != std::string::npos);
  CHECK(md.find("| `dataset.train_samples` | integer | `2000` if dataset.name is synthetic; `0` |") !=
        std::string::npos);
  CHECK(md.find("Used only when dataset.name is synthetic (ignored otherwise).") != std::string::npos);
  CHECK(md.find("| `devices[].name` | string | same as `host` |") != std::string::npos);
  CHECK(md.find("- duration (base s): us, ms, s, min, h") != std::string::npos);
}

TEST_CASE("schema: markdown rows of streams and ScaDLES") {
  const std::string md = schema_markdown();
  CHECK(md.find("| `stream` | object or null | `null` (no streams: static partitions, data always available) |") !=
        std::string::npos);
  CHECK(md.find("| `stream.rate` | rate (samples/s) or null | required unless `trace` is set |") != std::string::npos);
  // The presets are documented from the table the loader resolves them with.
  CHECK(md.find("`S1` = uniform, mean 38, spread 24; `S2` = uniform, mean 300, spread 112; `S10` = normal, mean 64, "
                "std 24; `S20` = normal, mean 256, std 28.") != std::string::npos);
  CHECK(md.find("| `stream.arrivals` | enum | `\"fluid\"` |") != std::string::npos);
  CHECK(md.find("| `stream.buffer.capacity_samples` | integer | required if stream.buffer.policy is drop-oldest or "
                "drop-newest |") != std::string::npos);
  CHECK(md.find("| `stream.sample_bytes` | size (B) or null | `null` (the dataset's sample size) |") !=
        std::string::npos);
  CHECK(md.find("Must be a whole number >= 1 B, at most 67108864 B (") != std::string::npos);
  CHECK(md.find("| `devices[].stream.rate` | rate (samples/s) or null | inherited from `stream.rate` | This device's "
                "`stream.rate`. Same forms as `stream.rate`.") != std::string::npos);
  CHECK(md.find("| `devices[].stream` | object or null | inherited from `stream` |") != std::string::npos);
  CHECK(md.find("Used only when devices[].stream.buffer.policy is drop-oldest or drop-newest") != std::string::npos);
  CHECK(md.find("One of `sync`, `scadles`, `async`, `local-sgd`.") != std::string::npos);
  CHECK(md.find("| `training.base_global_batch` | integer or null | `null` (`training.batch_size` times the number of "
                "devices) |") != std::string::npos);
  CHECK(md.find("| `training.injection` | object or null | `null` (no injection) |") != std::string::npos);
  CHECK(md.find("| `training.injection.alpha` | number | required | Fraction of devices that share at each step. Must "
                "be in (0, 1]. |") != std::string::npos);
  CHECK(md.find("| `report.buffer_every_s` | duration (s) | `1.0` |") != std::string::npos);
}

TEST_CASE("schema: markdown rows of local SGD, round timeout and faults") {
  const std::string md = schema_markdown();
  CHECK(md.find("| `stream.while_off` | enum | `\"buffer\"` |") != std::string::npos);
  CHECK(md.find("| `devices[].stream.while_off` | enum | inherited from `stream.while_off` | This device's "
                "`stream.while_off`. One of `buffer`, `lose`. |") != std::string::npos);
  CHECK(md.find("| `training.local_steps` | integer | `5` |") != std::string::npos);
  CHECK(md.find("Used only when training.mode is local-sgd (ignored otherwise).") != std::string::npos);
  CHECK(md.find("| `training.aggregation` | enum | `\"sync\"` |") != std::string::npos);
  CHECK(md.find("| `training.server_lr` | number | `1.0` |") != std::string::npos);
  CHECK(md.find("Used only when training.mode is async or local-sgd (ignored otherwise).") != std::string::npos);
  CHECK(md.find("| `training.round_timeout_s` | duration (s) or null | `null` (wait for every device) |") !=
        std::string::npos);
  CHECK(md.find("Used only when training.mode is sync, scadles or local-sgd (ignored otherwise).") !=
        std::string::npos);
  CHECK(md.find("| `faults` | object or null | `null` (no faults) |") != std::string::npos);
  CHECK(md.find("| `faults.devices` | list or null | `null` (no device faults) |") != std::string::npos);
  CHECK(md.find("| `faults.devices[].device` | string | `\"*\"` |") != std::string::npos);
  CHECK(md.find("| `faults.devices[].off_s` | list of [off_s, on_s] intervals (s) or null | `null` (no fixed off "
                "intervals) |") != std::string::npos);
  CHECK(md.find("0 <= off_s < on_s <= 1000000000 s, in time order, neither overlapping nor touching; each interval "
                "and each gap between two lasts at least 1us") != std::string::npos);
  CHECK(md.find("| `faults.devices[].mtbf_s` | duration (s) or null | `null` (no random failures) |") !=
        std::string::npos);
  CHECK(md.find("| `faults.links[].link` | string | required |") != std::string::npos);
  CHECK(md.find("| `faults.links[].trace` | path (file) or null | `null` (the platform's constant bandwidth) |") !=
        std::string::npos);
  CHECK(md.find("| `faults.retry_s` | duration (s) | `1.0` |") != std::string::npos);
  // Fault entries are objects: no plain-string form is documented for them.
  const size_t row = md.find("| `faults.devices` |");
  REQUIRE(row != std::string::npos);
  CHECK(md.substr(row, md.find('\n', row) - row).find("plain string") == std::string::npos);
}

TEST_CASE("schema: table is self-consistent") {
  std::set<std::string> seen;
  for (const auto& k : schema_keys()) {
    CAPTURE(k.path);
    CHECK(seen.insert(k.path).second);  // no duplicate rows
    // Conditions look at keys resolved earlier in table order, and only at enum keys.
    std::vector<Condition> conditions;
    if (k.applies_when) conditions.push_back(*k.applies_when);
    for (const auto& d : k.defaults) {
      if (d.when) conditions.push_back(*d.when);
    }
    for (const auto& c : conditions) {
      CAPTURE(c.key);
      CHECK(seen.count(c.key) == 1);
      const KeySpec* target = find_key(c.key);
      REQUIRE(target != nullptr);
      CHECK(target->type == ValueType::Enum);
      for (const auto& v : c.values) CHECK(std::count(target->choices.begin(), target->choices.end(), v) == 1);
    }
    for (const auto& d : k.defaults) {
      if (d.kind == DefaultRule::Kind::SameAs || d.kind == DefaultRule::Kind::RequiredUnless) {
        const std::string section = k.path.substr(0, k.path.rfind('.') + 1);
        CHECK(seen.count(section + d.sibling) == 1);
      }
      // Every literal default passes the key's own checks (existence of paths aside).
      if (d.kind == DefaultRule::Kind::Value) {
        ResolveContext ctx{"/", "x"};
        CHECK(error_of([&] { check_value(k, d.value, k.path, ctx, false); }) == "<no error>");
      }
      if (d.kind == DefaultRule::Kind::Null) CHECK(k.nullable);
    }
    // A per-device row overrides a global row declared before it, of the same type.
    if (!k.inherits.empty()) {
      CHECK(seen.count(k.inherits) == 1);
      const KeySpec* global = find_key(k.inherits);
      REQUIRE(global != nullptr);
      CHECK(global->type == k.type);
      CHECK(k.path.find("[]") != std::string::npos);
    }
    if (k.type == ValueType::Section) CHECK(is_section(k.path));
    if (!k.overrides.empty()) {
      const std::string section = k.path.substr(0, k.path.rfind('.') + 1);
      CHECK(find_key(section + k.overrides) != nullptr);
    }
    CHECK(!k.description.empty());
    if (k.type == ValueType::Enum) CHECK(!k.choices.empty());
    if (k.type == ValueType::EntryList) CHECK(is_section(k.path + "[]"));
  }
}

TEST_CASE("schema: lookups") {
  CHECK(child_names("") == std::vector<std::string>{"population", "name", "seed", "platform", "network", "server", "stream",
                                                    "devices", "training", "dataset", "model", "compression", "faults",
                                                    "traces", "topology", "eval", "stop", "report",
                                                    "privacy", "strategy", "defence", "attack"});
  CHECK(child_names("topology") ==
        std::vector<std::string>{"kind", "graph", "degree", "sites", "site_rounds", "cloud_aggregation", "site_compression"});
  CHECK(child_names("training") == std::vector<std::string>{"compute",           "compute_profile",
                                                            "compute_profile_file", "mode",
                                                            "batch_size",        "lr",
                                                            "momentum",          "weight_decay",
                                                            "window_s",          "batch_min",
                                                            "batch_max",         "base_global_batch",
                                                            "weighting",         "lr_scaling",
                                                            "injection",         "staleness_lr",
                                                            "max_staleness",     "staleness_policy",
                                                            "buffer_size",       "start_jitter_s",
                                                            "staleness_history", "local_steps",
                                                            "aggregation",       "server_lr",
                                                            "round_timeout_s",   "deadline",
                                                            "deadline_python",   "deadline_settings",
                                                            "selection"});
  CHECK(child_names("devices[]") == std::vector<std::string>{"host", "name", "stream"});
  CHECK(child_names("stream") ==
        std::vector<std::string>{"trace", "rate", "arrivals", "buffer", "sample_bytes", "while_off"});
  CHECK(child_names("devices[].stream") == child_names("stream"));
  CHECK(child_names("stream.buffer") == std::vector<std::string>{"policy", "capacity_samples", "window_s"});
  CHECK(child_names("training.injection") == std::vector<std::string>{"alpha", "beta"});
  CHECK(child_names("training.selection") == std::vector<std::string>{"kind", "per_round", "fraction", "over_selection",
                                                                      "exploration", "alpha", "preferred_round_s", "python", "settings",
                                                                      "min_updates", "below_min"});
  CHECK(child_names("faults") == std::vector<std::string>{"devices", "links", "retry_s"});
  CHECK(child_names("faults.devices[]") == std::vector<std::string>{"device", "off_s", "mtbf_s", "mttr_s"});
  CHECK(child_names("faults.links[]") == std::vector<std::string>{"link", "trace", "off_s"});
  CHECK(find_key("faults.devices")->type == ValueType::EntryList);
  CHECK(find_key("faults.devices[].off_s")->type == ValueType::IntervalList);
  CHECK(find_key("devices[].stream.while_off")->inherits == "stream.while_off");
  CHECK(is_section("faults"));
  CHECK(!is_section("faults.devices"));
  CHECK(is_section("faults.devices[]"));
  // An optional section has a row of its own, and is still a section.
  REQUIRE(find_key("stream") != nullptr);
  CHECK(find_key("stream")->type == ValueType::Section);
  CHECK(is_section("stream"));
  CHECK(is_section("devices[].stream.buffer"));
  CHECK(find_key("devices[].stream.rate")->inherits == "stream.rate");
  CHECK(child_names("dataset.partition") ==
        std::vector<std::string>{"kind", "labels_per_device", "alpha", "users_per_device", "shuffle_users", "parts"});
  CHECK(find_key("training.lr") != nullptr);
  CHECK(find_key("training") == nullptr);
  CHECK(is_section("training"));
  CHECK(is_section("dataset.partition"));
  CHECK(!is_section("training.lr"));
  CHECK(!is_section("train"));
}
