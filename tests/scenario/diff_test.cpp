// What differs between two resolved scenarios: dotted paths as --set spells them, values before
// and after, additions and removals, and the short text a run prints.
#include "scenario/diff.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

TEST_CASE("diff: equal documents differ in nothing, numbers compare by value") {
  TempDir dir;
  const json resolved = parse_in(dir, minimal_doc()).resolved;
  CHECK(differences(resolved, resolved).empty());
  // scenario.json read back: a number's JSON type may change, not its value.
  CHECK(differences(json::parse(resolved.dump()), resolved).empty());
  CHECK(differences(json{{"lr", 1}}, json{{"lr", 1.0}}).empty());
}

TEST_CASE("diff: changed, added and removed keys as dotted paths") {
  TempDir dir;
  const json before = parse_in(dir, minimal_doc()).resolved;
  const json after = parse_in(dir, minimal_doc(), {"training.lr=0.1", "seed=7", "devices.2=pi-3"}).resolved;
  const std::vector<Difference> d = differences(before, after);
  REQUIRE(d.size() == 3);
  CHECK(d[0].path == "devices.2");  // in key order
  CHECK(!d[0].before);
  CHECK(*d[0].after == json{{"host", "pi-3"}, {"name", "pi-3"}, {"stream", nullptr}});
  CHECK(difference_text(d[0]) == R"(devices.2 (absent) -> {"host":"pi-3","name":"pi-3","stream":null})");
  CHECK(difference_text(d[1]) == "seed 1 -> 7");
  CHECK(difference_text(d[2]) == "training.lr 0.05 -> 0.1");
  // Changed values first, then keys added or removed.
  CHECK(differences_text(d) ==
        R"(seed 1 -> 7, training.lr 0.05 -> 0.1, devices.2 (absent) -> {"host":"pi-3","name":"pi-3","stream":null})");
  CHECK(differences_text(d, 1) == "seed 1 -> 7 and 2 more");
  const std::vector<Difference> back = differences(after, before);
  REQUIRE(back.size() == 3);
  CHECK(difference_text(back[0]) == R"(devices.2 {"host":"pi-3","name":"pi-3","stream":null} -> (absent))");
}

TEST_CASE("diff: keys with JSON Pointer escapes, nested values, long values cut") {
  const json before = {{"a/b", {{"c~d", 1}}}, {"text", std::string(100, 'x')}};
  const json after = {{"a/b", {{"c~d", 2}}}, {"text", "short"}};
  const std::vector<Difference> d = differences(before, after);
  REQUIRE(d.size() == 2);
  CHECK(d[0].path == "a/b.c~d");
  CHECK(difference_text(d[1]) == "text \"" + std::string(56, 'x') + "... -> \"short\"");
  CHECK(difference_text(differences(json::array(), json::object()).at(0)) == "(the whole document) [] -> {}");
}

TEST_CASE("diff: elements appended to or removed from the end of a list are named by their index") {
  const json before = {{"list", {1, 2}}};
  const json after = {{"list", {1, 2, 3, 4}}};
  std::vector<std::string> texts;
  for (const Difference& d : differences(before, after)) texts.push_back(difference_text(d));
  CHECK(texts == std::vector<std::string>{"list.2 (absent) -> 3", "list.3 (absent) -> 4"});
  texts.clear();
  for (const Difference& d : differences(after, before)) texts.push_back(difference_text(d));
  CHECK(texts.size() == 2);
  CHECK(std::find(texts.begin(), texts.end(), "list.2 3 -> (absent)") != texts.end());
  CHECK(std::find(texts.begin(), texts.end(), "list.3 4 -> (absent)") != texts.end());
}
