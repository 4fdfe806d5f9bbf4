// Tests of the pass over JSON text before parsing: nesting depth and duplicate keys, with
// positions, in files and in --set values; and --seed through the seed key's rule.
#include "input/json_text.hpp"

#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace edgetrain::scenario;
using namespace edgetrain::input;
using namespace edgetrain::scenario::testing;
using nlohmann::json;

namespace {

std::string nested(size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); }

std::string file_error(const TempDir& dir, const std::string& text) {
  const auto file = dir.write("scen.json", text);
  return error_of([&] { load_scenario(file); });
}

}  // namespace

TEST_CASE("json text: nesting is limited to 64 levels, in files, in --set values and in documents") {
  TempDir dir;
  CHECK(!find_json_text_issue(nested(64), false));
  const auto issue = find_json_text_issue(nested(65), false);
  REQUIRE(issue);
  CHECK(issue->at.column == 65);
  CHECK(issue->message == "nesting deeper than 64 levels");
  // 100,000 levels: a clear message, no crash.
  CHECK(file_error(dir, "{\n  \"x\": " + nested(100000) + "}") ==
        (dir / "scen.json").string() + ":2:71: nesting deeper than 64 levels");
  CHECK(parse_error(dir, minimal_doc(), {"stream=" + nested(100000)}) ==
        "--set stream=" + std::string(70, '[') + "...: column 65 of the value: nesting deeper than 64 levels");
  // A document built in memory (the library entry point) is checked too.
  json deep = json::array();
  for (int i = 0; i < 100; ++i) deep = json::array({deep});
  json doc = minimal_doc();
  doc["x"] = deep;
  CHECK(parse_error(dir, doc) == "scenario: nesting deeper than 64 levels");
}

TEST_CASE("json text: a key given twice in one object names both places") {
  TempDir dir;
  const std::string f = (dir / "scen.json").string();
  CHECK(file_error(dir, "{\n  \"seed\": 1,\n  \"seed\": 2\n}") ==
        f + ":3:3: duplicate key \"seed\" in one object (first at " + f + ":2:3)");
  // Nested objects, escapes that spell the same key, comments and strings that look like JSON.
  CHECK(file_error(dir, "{\"training\": {\"lr\": 0.1, /* \"lr\": */ \"x\": \"{\\\"lr\\\"\",\n \"\\u006cr\": 2}}") ==
        f + ":2:2: duplicate key \"lr\" in one object (first at " + f + ":1:15)");
  // The same key in different objects, or in an array of objects, is fine.
  CHECK(!find_json_text_issue(R"({"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 1}, {"k": 2}]})", false));
  CHECK(!find_json_text_issue("{\"a\": 1 // \"a\": 2\n}", true));
  CHECK(parse_error(dir, minimal_doc(), {R"(stream={"rate": 5, "rate": 6})"}) ==
        R"(--set stream={"rate": 5, "rate": 6}: column 13 of the value: duplicate key "rate" in one object )"
        "(first at column 2 of the value)");
  // Malformed text is left to the parser, which names the position itself.
  CHECK(file_error(dir, "{\"a\": \"unterminated}").find("malformed JSON") != std::string::npos);
}

TEST_CASE("seed option: --seed follows the seed key's rule") {
  CHECK(parse_seed_option("5") == 5);
  CHECK(parse_seed_option("18446744073709551615") == 18446744073709551615ULL);
  CHECK(error_of([] { parse_seed_option("-1"); }) == "--seed: must be a non-negative integer, got -1");
  CHECK(error_of([] { parse_seed_option("1.5"); }) == "--seed: expected a non-negative integer, got 1.5");
  CHECK(error_of([] { parse_seed_option("abc"); }) == "--seed: expected a non-negative integer, got \"abc\"");
  TempDir dir;
  CHECK(parse_error(dir, minimal_doc(), {"seed=-1"}) == "seed: must be a non-negative integer, got -1");
}
