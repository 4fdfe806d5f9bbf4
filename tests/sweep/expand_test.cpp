// Sweep files: grid and runs expansion, their order, and the errors of a bad sweep file.
#include <doctest/doctest.h>

#include "sweep/sweep_file.hpp"

using namespace edgetrain::sweep;
using ojson = nlohmann::ordered_json;

namespace {

std::vector<std::string> described(const SweepSpec& s) {
  std::vector<std::string> out;
  for (const auto& r : s.runs) out.push_back(describe(r));
  return out;
}

std::string error_of(const ojson& grid, const ojson& runs) {
  try {
    expand(grid, runs, "s.json");
  } catch (const SweepError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("expand: a grid is every combination, the first key varying slowest, in the file's key order") {
  const auto grid = ojson::parse(R"({"training.mode": ["sync", "scadles"], "seed": [2, 1], "training.lr": [0.1]})");
  const SweepSpec s = expand(grid, nullptr, "s.json");
  CHECK(s.varied == std::vector<std::string>{"training.mode", "seed", "training.lr"});
  CHECK(described(s) == std::vector<std::string>{"training.mode=sync seed=2 training.lr=0.1",
                                                 "training.mode=sync seed=1 training.lr=0.1",
                                                 "training.mode=scadles seed=2 training.lr=0.1",
                                                 "training.mode=scadles seed=1 training.lr=0.1"});
}

TEST_CASE("expand: runs are taken in order, their keys are varied in order of first appearance") {
  const auto runs = ojson::parse(R"([{"training.lr": 0.1}, {"stop.rounds": 3, "training.lr": 0.2}, {}])");
  const SweepSpec s = expand(nullptr, runs, "s.json");
  CHECK(s.varied == std::vector<std::string>{"training.lr", "stop.rounds"});
  // Each run lists its keys in the order of `varied`, whatever their order in the file.
  CHECK(described(s) == std::vector<std::string>{"training.lr=0.1", "training.lr=0.2 stop.rounds=3", ""});
}

TEST_CASE("expand: grid and runs together cross every combination with every run, grid outer") {
  const auto grid = ojson::parse(R"({"seed": [1, 2]})");
  const auto runs = ojson::parse(R"([{"training.lr": 0.1}, {"training.lr": 0.2, "model.hidden": [64]}])");
  const SweepSpec s = expand(grid, runs, "s.json");
  CHECK(s.varied == std::vector<std::string>{"seed", "training.lr", "model.hidden"});
  CHECK(described(s) == std::vector<std::string>{"seed=1 training.lr=0.1", "seed=1 training.lr=0.2 model.hidden=[64]",
                                                 "seed=2 training.lr=0.1", "seed=2 training.lr=0.2 model.hidden=[64]"});
}

TEST_CASE("expand: values are passed to --set as JSON, strings included") {
  const auto grid = ojson::parse(R"({"stream.rate": ["S1", {"kind": "normal", "mean": 40}], "stop.rounds": [null]})");
  const SweepSpec s = expand(grid, nullptr, "s.json");
  REQUIRE(s.runs.size() == 2);
  CHECK(set_text(s.runs[0][0]) == "stream.rate=\"S1\"");
  CHECK(set_text(s.runs[1][0]) == "stream.rate={\"kind\":\"normal\",\"mean\":40}");
  CHECK(set_text(s.runs[0][1]) == "stop.rounds=null");
  CHECK(cell_text(s.runs[0][0].second) == "S1");
}

TEST_CASE("expand: a bad grid or runs entry names the file and the key") {
  CHECK(error_of(nullptr, nullptr) == "s.json: nothing to vary: give \"grid\" and/or \"runs\"");
  CHECK(error_of(ojson::parse(R"({"seed": []})"), nullptr) == "s.json: grid.seed: expected a non-empty list of values");
  CHECK(error_of(ojson::parse(R"({"seed": 3})"), nullptr) == "s.json: grid.seed: expected a non-empty list of values");
  CHECK(error_of(ojson::parse("[1]"), nullptr).find("s.json: grid: expected an object") == 0);
  CHECK(error_of(nullptr, ojson::parse(R"([{"a": 1}, 3])")) == "s.json: runs[1]: expected an object of key -> value");
  CHECK(error_of(ojson::parse(R"({"seed": [1]})"), ojson::parse(R"([{"seed": 2}])")) ==
        "s.json: runs[0].seed: also in grid (a run cannot override a grid key)");
  CHECK(error_of(ojson::parse(R"({"training..lr": [1]})"), nullptr).find("is not a dotted scenario key") !=
        std::string::npos);
  CHECK(error_of(nullptr, ojson::parse(R"([{"a=b": 1}])")).find("s.json: runs[0]: \"a=b\" is not") == 0);
}

TEST_CASE("expand: a run's label names it in every run it makes, and is no scenario key") {
  const auto grid = ojson::parse(R"({"seed": [1, 2]})");
  const auto runs = ojson::parse(R"([{"label": "int8", "compression.kind": "int8"}, {"compression.kind": "none"}])");
  const SweepSpec s = expand(grid, runs, "s.json");
  CHECK(s.varied == std::vector<std::string>{"seed", "compression.kind"});  // the label is not varied
  CHECK(s.grid_keys == std::vector<std::string>{"seed"});
  CHECK(s.labels == std::vector<std::string>{"int8", "", "int8", ""});
  CHECK(described(s) == std::vector<std::string>{"seed=1 compression.kind=int8", "seed=1 compression.kind=none",
                                                 "seed=2 compression.kind=int8", "seed=2 compression.kind=none"});
  CHECK(s.labelled());
  CHECK_FALSE(expand(grid, nullptr, "s.json").labelled());
  // A label is a short printable string.
  CHECK(error_of(nullptr, ojson::parse(R"([{"label": 3}])")) ==
        "s.json: runs[0].label: expected a non-empty string, the run's name in figures and tables");
  CHECK(error_of(nullptr, ojson::parse(R"([{"label": ""}])")).find("expected a non-empty string") != std::string::npos);
  CHECK(error_of(nullptr, ojson::parse(R"([{"label": "a\nb"}])")) ==
        "s.json: runs[0].label: \"a\\x0ab\" holds a character that is not printable");
  CHECK(error_of(nullptr, ojson::parse("[{\"label\": \"" + std::string(61, 'x') + "\"}]")) ==
        "s.json: runs[0].label: 61 characters, at most 60 (a legend entry)");
}
