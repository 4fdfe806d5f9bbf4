// A pass over JSON text before nlohmann parses it, for what the parser does not report with a
// position: nesting deeper than kMaxJsonDepth (a 100,000-deep value would exhaust the stack
// later, when messages show it) and a key given twice in one object (the parser keeps the last
// one silently). It follows strings, escapes and comments and reports line:column; text it
// cannot follow is left to the parser, which reports syntax errors itself.
#pragma once

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace edgetrain::input {

inline constexpr size_t kMaxJsonDepth = 64;

struct TextPosition {
  size_t line = 1, column = 1;  // 1-based; the column counts bytes
};

struct JsonTextIssue {
  TextPosition at;
  std::string message;                // "nesting deeper than 64 levels", "duplicate key \"seed\" in one object"
  std::optional<TextPosition> first;  // a duplicate key: where it was first given
};

// The first issue in `text`, or none. `comments`: // and /* */ comments are allowed.
std::optional<JsonTextIssue> find_json_text_issue(std::string_view text, bool comments);

// "<where(at)>: <message>", with " (first at <where(first)>)" for a duplicate key; `where`
// writes a position ("scen.json:4:3", "column 12 of the value").
std::string issue_text(const JsonTextIssue& issue, const std::function<std::string(const TextPosition&)>& where);

// Throws Error "<at>: nesting deeper than 64 levels" for an in-memory document deeper
// than kMaxJsonDepth (checked without recursing past that depth).
void check_json_depth(const nlohmann::json& doc, const std::string& at);

// A JSON file a module reads (a calibration, a compute profile, LEAF's data, a run's results): the
// text pass above, then nlohmann's parser; an input error "<shown>:LINE:COLUMN: <what>" or
// "<shown>: not valid JSON (<parser's words>)" otherwise. The one way to parse such a file: a
// document nested 100,000 deep would otherwise exhaust the stack where it is destroyed.
nlohmann::json parse_json_file(std::string_view text, const std::string& shown, bool comments = false);

// The same, rethrowing as the caller's module error (its message unchanged).
template <class E>
nlohmann::json parse_json_file_as(std::string_view text, const std::string& shown, bool comments = false) {
  try {
    return parse_json_file(text, shown, comments);
  } catch (const std::runtime_error& e) {
    throw E(e.what());
  }
}

}  // namespace edgetrain::input
