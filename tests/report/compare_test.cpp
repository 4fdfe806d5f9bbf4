// edgetrain compare: scenarios flattened by dotted path, the figures side by side, the speed-up
// against the first run (on time to target, else simulated time), differing keys grouped when every
// device changed alike, and the command's output and errors.
#include "report/compare.hpp"

#include <doctest/doctest.h>
#include <unistd.h>
#include <sys/wait.h>

#include <fstream>

using namespace edgetrain::report;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

RunRecord record(const std::string& folder, json summary, json scenario) { return {folder, summary, scenario}; }

json scenario(const std::string& mode, double rate) {
  return {{"name", "q"},
          {"training", {{"mode", mode}, {"lr", 0.05}}},
          {"devices", {{{"host", "a"}, {"rate", rate}}, {{"host", "b"}, {"rate", rate}}}}};
}

fs::path write_run(const std::string& name, const json& summary, const json& scenario) {
  const fs::path dir = fs::temp_directory_path() / ("edgetrain-compare-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "summary.json") << summary.dump();
  std::ofstream(dir / "scenario.json") << scenario.dump();
  return dir;
}

struct Output {
  int status;
  std::string out, err;
};
Output run_compare(const std::string& args) {
  // One folder per test process: ctest -j2 runs two of these tests at once (a shared one raced).
  const fs::path dir = fs::temp_directory_path() / ("edgetrain-compare-cli-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string cmd = std::string(EDGETRAIN_BINARY) + " compare " + args + " >" + (dir / "out").string() + " 2>" +
                          (dir / "err").string();
  const int raw = std::system(cmd.c_str());
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(dir / "out"), slurp(dir / "err")};
}

}  // namespace

TEST_CASE("compare: flatten names every leaf by its dotted path, list entries by index") {
  const auto flat = flatten(json{{"a", {{"b", 1}, {"c", json::array({2, json{{"d", "x"}}})}}}, {"e", json::object()}});
  CHECK(flat.size() == 4);
  CHECK(flat.at("a.b") == 1);
  CHECK(flat.at("a.c.0") == 2);
  CHECK(flat.at("a.c.1.d") == "x");
  CHECK(flat.at("e") == json::object());
}

TEST_CASE("compare: figures side by side, speed-up on time to target, differences by key") {
  const auto c = compare_runs({
      record("sync",
             {{"status", "target_reached"},
              {"time_to_target_s", 200.0},
              {"rounds", 100},
              {"sim_time_s", 210.0},
              {"bytes_up", 1000},
              {"bytes_down", 2000},
              {"final_test_accuracy", 0.84},
              {"best_test_accuracy", 0.85}},
             scenario("sync", 10)),
      record("async",
             {{"status", "target_reached"},
              {"time_to_target_s", 50.0},
              {"rounds", 400},
              {"sim_time_s", 60.0},
              {"bytes_up", 4000},
              {"bytes_down", 8000},
              {"final_test_accuracy", 0.84},
              {"best_test_accuracy", 0.86}},
             scenario("async", 20)),
      record("slow", {{"status", "completed"}, {"time_to_target_s", nullptr}, {"sim_time_s", 300.0}},
             scenario("sync", 10)),
  });
  CHECK(c.speedup_basis == "time_to_target_s");
  REQUIRE(c.speedup.size() == 3);
  CHECK(*c.speedup[0] == 1.0);
  CHECK(*c.speedup[1] == 4.0);
  CHECK(!c.speedup[2]);  // did not reach the target
  std::vector<std::string> keys;
  for (const auto& f : c.figures) keys.push_back(f.key);
  CHECK(keys == std::vector<std::string>{"status", "time_to_target_s", "rounds", "sim_time_s", "bytes_up", "bytes_down",
                                         "final_test_accuracy", "best_test_accuracy"});  // no energy_j anywhere
  CHECK(!c.figures[2].values[2]);                                                        // the third run has no rounds
  REQUIRE(c.differences.size() == 2);
  CHECK(c.differences[0].key == "devices.*.rate");  // both devices changed alike: one row
  CHECK(*c.differences[0].values[1] == 20);
  CHECK(c.differences[1].key == "training.mode");
  const std::string text = format_text(c, 40);
  CHECK(text.find("speed-up (time to target)  1.00x           4.00x           -") != std::string::npos);
  CHECK(text.find("time to target             200.00 s        50.00 s         not reached") != std::string::npos);
  CHECK(text.find("bytes down                 2.0 kB          8.0 kB          -") != std::string::npos);
  CHECK(text.find("training.mode   \"sync\"  \"async\"  \"sync\"") != std::string::npos);
  const json j = to_json(c);
  CHECK(j["speedup"]["values"] == json::array({1.0, 4.0, nullptr}));
  CHECK(j["differences"]["training.mode"] == json::array({"sync", "async", "sync"}));
}

TEST_CASE(
    "compare: without a target the speed-up is on simulated time, energy shows where known, and keys one run lacks are "
    "absent") {
  json two = scenario("sync", 10);
  two["devices"][1]["rate"] = 30;  // only one device differs: its own row
  two["stream"] = {{"rate", "S1"}};
  const auto c = compare_runs({record("a", {{"sim_time_s", 100.0}, {"energy_j", 5.0}}, scenario("sync", 10)),
                               record("b", {{"sim_time_s", 25.0}}, two)});
  CHECK(c.speedup_basis == "sim_time_s");
  CHECK(*c.speedup[1] == 4.0);
  CHECK(c.figures.back().key == "energy_j");
  CHECK(!c.figures.back().values[1]);
  REQUIRE(c.differences.size() == 2);
  CHECK(c.differences[0].key == "devices.1.rate");
  CHECK(c.differences[1].key == "stream.rate");
  CHECK(!c.differences[1].values[0]);
  const std::string text = format_text(c, 1);
  CHECK(text.find("energy                     5.0 J     -\n") != std::string::npos);
  CHECK(text.find("speed-up (simulated time)  1.00x     4.00x\n") != std::string::npos);
  CHECK(text.find("(absent)") == std::string::npos);  // the only absent value is past the shown row
  CHECK(text.find("... and 1 more (--all shows every key)") != std::string::npos);
  CHECK(format_text(compare_runs({record("a", {}, scenario("sync", 1)), record("b", {}, scenario("sync", 1))}), 40)
            .find("The resolved scenarios are identical.") != std::string::npos);
}

TEST_CASE("compare: round time and the bytes that reached the server, by level for a hierarchy") {
  const json flat = {{"status", "completed"},
                     {"sim_time_s", 100.0},
                     {"round_s", {{"mean", 10.0}, {"median", 9.5}, {"p95", 14.25}, {"max", 15.0}, {"count", 10}}},
                     {"bytes_up", 5000000},
                     {"bytes_to_server", 5000000}};
  json hier = flat;
  hier["bytes_up"] = 5000000;  // the devices' bytes are alike...
  hier["bytes_to_server"] = 1000000;  // ...but the cloud got a fifth of them
  hier["bytes_by_level"] = {
      {"device_to_site", 5000000}, {"site_to_device", 5000000}, {"site_to_cloud", 1000000}, {"cloud_to_site", 2000000}};
  json none = flat;
  none["round_s"] = nullptr;  // no round closed
  const auto c = compare_runs({record("flat", flat, scenario("sync", 1)), record("hier", hier, scenario("sync", 1)),
                               record("none", none, scenario("sync", 1))});
  std::vector<std::string> keys;
  for (const auto& f : c.figures) keys.push_back(f.key);
  CHECK(keys == std::vector<std::string>{"status", "sim_time_s", "round_s.mean", "round_s.median", "round_s.p95",
                                         "bytes_up", "bytes_to_server", "bytes_by_level.device_to_site",
                                         "bytes_by_level.site_to_cloud", "bytes_by_level.cloud_to_site",
                                         "bytes_by_level.site_to_device"});
  const std::string text = format_text(c, 40);
  CHECK(text.find("round time (p95)           14.25 s    14.25 s    -\n") != std::string::npos);
  CHECK(text.find("bytes to server            5.0 MB     1.0 MB     5.0 MB\n") != std::string::npos);
  CHECK(text.find("bytes site -> cloud        -          1.0 MB     -\n") != std::string::npos);
  CHECK(to_json(c)["figures"]["round_s.mean"] == json::array({10.0, 10.0, nullptr}));
  // Flat runs only: the server's bytes are the devices', no row of their own.
  const auto flat_only = compare_runs({record("flat", flat, scenario("sync", 1)), record("none", none, scenario("sync", 1))});
  for (const auto& f : flat_only.figures) CHECK(f.key != "bytes_to_server");
}

TEST_CASE("compare: the command prints the table or JSON, and one line with exit 2 for bad input") {
  const fs::path a = write_run("a", {{"status", "completed"}, {"sim_time_s", 10.0}}, scenario("sync", 1));
  const fs::path b = write_run("b", {{"status", "completed"}, {"sim_time_s", 5.0}}, scenario("async", 1));
  const Output text = run_compare(a.string() + " " + b.string());
  CHECK(text.status == 0);
  CHECK(text.out.rfind("[1] " + a.string() + "\n[2] " + b.string() + "\n", 0) == 0);
  CHECK(text.out.find("speed-up (simulated time)  1.00x      2.00x") != std::string::npos);
  const Output js = run_compare("--format json " + a.string() + " " + b.string());
  CHECK(js.status == 0);
  CHECK(json::parse(js.out)["differences"]["training.mode"] == json::array({"sync", "async"}));
  const fs::path broken = write_run("broken", {}, {});
  std::ofstream(broken / "summary.json") << "{";
  const fs::path empty = fs::temp_directory_path() / "edgetrain-compare-empty";
  fs::create_directories(empty);
  struct Case {
    std::string args, err;
  } cases[] = {
      {a.string(), "edgetrain compare: expected at least two RUN_DIRs to compare (see edgetrain compare --help)\n"},
      {a.string() + " /nonexistent/run", "edgetrain compare: /nonexistent/run: no such folder\n"},
      {a.string() + " " + empty.string(),
       "edgetrain compare: " + (empty / "summary.json").string() + ": cannot read it (not a run folder?)\n"},
      {a.string() + " --format xml " + b.string(),
       "edgetrain compare: --format: expected text or json, got \"xml\" (see edgetrain compare --help)\n"},
      {a.string() + " --colour " + b.string(),
       "edgetrain compare: unknown option \"--colour\" (see edgetrain compare --help)\n"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    const Output r = run_compare(c.args);
    CHECK(r.status == 2);
    CHECK(r.err == c.err);
  }
  const Output bad_json = run_compare(a.string() + " " + broken.string());
  CHECK(bad_json.status == 2);
  CHECK(bad_json.err.rfind("edgetrain compare: " + (broken / "summary.json").string() + ": not valid JSON (", 0) == 0);
  CHECK(std::count(bad_json.err.begin(), bad_json.err.end(), '\n') == 1);
}

TEST_CASE("compare: with defaults applied, a key a run lacks counts as its default, a null section as its keys'") {
  // As scenario::schema_default would answer for these keys.
  const DefaultOf defaults = [](const std::string& key, const json&) -> std::optional<json> {
    if (key == "training.staleness_history") return json(1000);
    if (key == "compression.kind") return json("none");
    if (key == "compression.ratio") return json(0.01);
    return std::nullopt;
  };
  json sync = scenario("sync", 10), async = scenario("async", 10);
  sync["compression"] = nullptr;
  async["training"]["staleness_history"] = 1000;  // the default: not a difference
  async["compression"] = {{"kind", "topk"}, {"ratio", 0.01}, {"scope", "layer"}};
  const auto c = compare_runs({record("a", {}, sync), record("b", {}, async)}, defaults);
  std::vector<std::string> keys;
  for (const auto& d : c.differences) keys.push_back(d.key);
  // compression.scope has no default here: absent in the first run, it still differs.
  CHECK(keys == std::vector<std::string>{"compression.kind", "compression.scope", "training.mode"});
  CHECK(c.differences[0].defaulted == std::vector<bool>{true, false});
  const std::string text = format_text(c, 40);
  CHECK(text.find("compression.kind   \"none\" (default)  \"topk\"\n") != std::string::npos);
  CHECK(text.find("compression.scope  (absent)          \"layer\"\n") != std::string::npos);
  // Without defaults every key one run lacks differs (what the command printed before).
  CHECK(compare_runs({record("a", {}, sync), record("b", {}, async)}).differences.size() == 6);
}

TEST_CASE("compare: real runs that differ in one key list that key alone") {
  const fs::path dir = fs::temp_directory_path() / "edgetrain-compare-real";
  fs::remove_all(dir);
  const std::string quick = std::string(EDGETRAIN_SOURCE_DIR) + "/scenarios/quickstart.json";
  const std::string timing =
      " --quiet --set training.compute=timing-only --set stop.target_accuracy=null --set stop.rounds=2";
  const std::pair<std::string, std::string> runs[] = {
      {"sync", ""},
      {"async", " --set training.mode=async"},
      {"topk", " --set 'compression={\"kind\":\"topk\"}'"},
  };
  for (const auto& [name, sets] : runs) {
    const std::string cmd =
        std::string(EDGETRAIN_BINARY) + " run " + quick + " --out " + (dir / name).string() + timing + sets + " >/dev/null";
    REQUIRE(std::system(cmd.c_str()) == 0);
  }
  const Output mode = run_compare((dir / "sync").string() + " " + (dir / "async").string());
  REQUIRE(mode.status == 0);
  CHECK(mode.out.find("Scenario keys that differ (1):\nkey            [1]     [2]\ntraining.mode  \"sync\"  \"async\"\n") !=
        std::string::npos);
  const Output topk = run_compare((dir / "sync").string() + " " + (dir / "topk").string());
  REQUIRE(topk.status == 0);
  CHECK(topk.out.find("Scenario keys that differ (1):\n") != std::string::npos);
  CHECK(topk.out.find("compression.kind  \"none\" (default)  \"topk\"\n") != std::string::npos);
}

TEST_CASE("compare: a mechanism on at its defaults differs from one left off (privacy.dp, secure aggregation)") {
  const fs::path dir = fs::temp_directory_path() / ("edgetrain-compare-switch-" + std::to_string(getpid()));
  fs::remove_all(dir);
  const std::string quick = std::string(EDGETRAIN_SOURCE_DIR) + "/scenarios/quickstart.json";
  const std::string timing =
      " --quiet --set training.compute=timing-only --set stop.target_accuracy=null --set stop.rounds=2";
  const std::pair<std::string, std::string> runs[] = {
      {"plain", ""},
      {"dp", " --set 'privacy.dp={}'"},
      {"secure", " --set 'privacy.secure_aggregation={}'"},
      {"dp2", " --set 'privacy.dp={\"noise_multiplier\":2}'"},
  };
  for (const auto& [name, sets] : runs) {
    const std::string cmd =
        std::string(EDGETRAIN_BINARY) + " run " + quick + " --out " + (dir / name).string() + timing + sets + " >/dev/null";
    REQUIRE(std::system(cmd.c_str()) == 0);
  }
  const Output dp = run_compare((dir / "plain").string() + " " + (dir / "dp").string());
  REQUIRE(dp.status == 0);
  CHECK(dp.out.find("privacy.dp  \"off\"  \"on\"\n") != std::string::npos);
  CHECK(dp.out.find("Scenario keys that differ (1):") != std::string::npos);
  const Output secure = run_compare((dir / "plain").string() + " " + (dir / "secure").string());
  REQUIRE(secure.status == 0);
  CHECK(secure.out.find("privacy.secure_aggregation       \"off\"     \"on\"\n") != std::string::npos);
  // Its kind beside it: "on" alone does not say which protocol.
  CHECK(secure.out.find("privacy.secure_aggregation.kind  (absent)  \"secagg\"\n") != std::string::npos);
  // Among runs where DP is on, its keys compare as before; the run without it is not a difference there.
  const Output three =
      run_compare((dir / "plain").string() + " " + (dir / "dp").string() + " " + (dir / "dp2").string());
  REQUIRE(three.status == 0);
  CHECK(three.out.find("Scenario keys that differ (2):") != std::string::npos);
  CHECK(three.out.find("\nprivacy.dp                   \"off\"     \"on\"  \"on\"\n") != std::string::npos);
  CHECK(three.out.find("\nprivacy.dp.noise_multiplier  (absent)  1.0   2.0\n") != std::string::npos);
  fs::remove_all(dir);
}
