// The plan: every run checked by the scenario loader before anything runs, run identity by the
// hash of the resolved scenario, runs that resolve the same sharing a folder, sweep.json.
#include "sweep/plan.hpp"

#include <doctest/doctest.h>

#include <set>

#include "helpers.hpp"
#include "scenario/load.hpp"
#include "sweep/hash.hpp"

using namespace edgetrain::sweep;
using ojson = nlohmann::ordered_json;
using sweep_test::kBase;

namespace {

Plan plan_of(const std::string& grid, const std::string& runs = "null") {
  SweepSpec spec = expand(ojson::parse(grid), ojson::parse(runs), "s.json");
  spec.file = "/tmp/s.json";
  spec.base = kBase;
  return make_plan(std::move(spec), "/tmp/out");
}

std::map<std::string, std::string> id_by_overrides(const Plan& p) {
  std::map<std::string, std::string> m;
  std::vector<std::string> keys = p.spec.varied;
  for (const auto& r : p.runs) {
    // Overrides sorted by key, so that two plans with different key orders compare.
    Overrides o = r.overrides;
    std::sort(o.begin(), o.end());
    m[describe(o)] = r.id;
  }
  return m;
}

}  // namespace

TEST_CASE("hash: SHA-256 of the compact JSON, whatever the order of the keys") {
  CHECK(scenario_hash(nlohmann::json::parse(R"({"a":1,"b":[2,3]})")) ==
        "efbd0040190fb0871831e606c581f8a66db79d8e2bb836745a70051306956070");
  CHECK(scenario_hash(nlohmann::json::parse(R"({"b":[2,3],"a":1})")) ==
        scenario_hash(nlohmann::json::parse(R"({"a":1,"b":[2,3]})")));
  CHECK(run_id(std::string(64, 'f')) == "ffffffffffff");
}

TEST_CASE("plan: run ids come from the resolved scenario, so reordering the grid keeps them") {
  const Plan a = plan_of(R"({"training.lr": [0.1, 0.2], "seed": [1, 2]})");
  const Plan b = plan_of(R"({"seed": [2, 1], "training.lr": [0.2, 0.1]})");
  REQUIRE(a.runs.size() == 4);
  CHECK(id_by_overrides(a) == id_by_overrides(b));
  std::set<std::string> ids;
  for (const auto& r : a.runs) {
    ids.insert(r.id);
    CHECK(r.folder == "runs/" + r.id);
    CHECK(r.id.size() == 12);
  }
  CHECK(ids.size() == 4);
  // The hash is that of what `edgetrain run` resolves for the same overrides.
  const auto& r = a.runs[0];
  CHECK(r.hash == scenario_hash(edgetrain::scenario::load_scenario(kBase, {"training.lr=0.1", "seed=1"}).resolved));
}

TEST_CASE("plan: runs that resolve to the same scenario share one folder, run once") {
  // stop.rounds is 5 in the base: the first two runs are the same scenario.
  const Plan p = plan_of("null", R"([{"stop.rounds": 5}, {}, {"stop.rounds": 6}])");
  REQUIRE(p.runs.size() == 3);
  CHECK(p.runs[0].id == p.runs[1].id);
  CHECK(p.runs[0].id != p.runs[2].id);
  CHECK(p.distinct() == std::vector<size_t>{0, 2});
}

TEST_CASE("plan: every bad run is reported, naming the run and the key, before anything runs") {
  try {
    plan_of(R"({"training.lr": [0.1, -1], "training.mode": ["sync", "bogus"]})");
    FAIL("expected PlanError");
  } catch (const PlanError& e) {
    REQUIRE(e.lines().size() == 3);
    CHECK(e.lines()[0].find("s.json: run 2 of 4 (training.lr=0.1 training.mode=bogus): training.mode") == 0);
    CHECK(e.lines()[1].find("s.json: run 3 of 4 (training.lr=-1 training.mode=sync): training.lr") == 0);
    CHECK(e.lines()[2].find("s.json: run 4 of 4 (training.lr=-1 training.mode=bogus): training.") == 0);
  }
  try {
    plan_of("null", R"([{"training.no_such_key": 1}])");
    FAIL("expected PlanError");
  } catch (const PlanError& e) {
    REQUIRE(e.lines().size() == 1);
    CHECK(e.lines()[0].find("training.no_such_key") != std::string::npos);
  }
}

TEST_CASE("plan: sweep.json lists base, varied keys and each run's id, folder, overrides and hash") {
  const Plan p = plan_of(R"({"training.mode": ["sync"], "seed": [3]})");
  const ojson j = plan_json(p);
  CHECK(j["base"] == kBase.string());
  CHECK(j["varied"] == ojson::parse(R"(["training.mode", "seed"])"));
  REQUIRE(j["runs"].size() == 1);
  CHECK(j["runs"][0]["overrides"].dump() == R"({"training.mode":"sync","seed":3})");
  CHECK(j["runs"][0]["id"] == p.runs[0].id);
  CHECK(j["runs"][0]["folder"] == p.runs[0].folder);
  CHECK(j["runs"][0]["hash"] == p.runs[0].hash);
  // Keys in this order: the report reads them by name, people read them top to bottom.
  std::vector<std::string> keys;
  for (const auto& [k, v] : j["runs"][0].items()) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"id", "folder", "overrides", "hash"});
  CHECK(j["grid_keys"] == ojson::parse(R"(["training.mode", "seed"])"));
  // A labelled run carries its label; the label takes no part in the run's identity.
  const Plan labelled = plan_of(R"({"seed": [3]})", R"([{"label": "fast", "training.mode": "sync"}])");
  const ojson l = plan_json(labelled);
  CHECK(l["runs"][0]["label"] == "fast");
  CHECK(l["grid_keys"] == ojson::parse(R"(["seed"])"));
  CHECK(labelled.runs[0].hash == p.runs[0].hash);
}
