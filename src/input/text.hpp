// Small text helpers for input error messages and documentation:
// showing a JSON value briefly, printing numbers without noise, and "did you mean" by edit
// distance. Shared by the modules that read input (scenario, fleet).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/format.hpp"

namespace edgetrain::input::text {

// The value as compact JSON, cut to about 60 characters so a huge object cannot flood the
// terminal. Never throws (invalid UTF-8 is replaced).
std::string show(const nlohmann::json& value);

using util::format_number;  // the shortest text that reads back as the same double

// Optimal-string-alignment distance (Levenshtein plus adjacent transposition), case-blind,
// so "hots" is one edit from "host" and "Seed" zero from "seed".
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` if it is close enough to be a plausible typo, else none.
std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates);

std::string join(const std::vector<std::string>& parts, std::string_view separator);

// "a", "a or b", "a, b or c".
std::string or_list(const std::vector<std::string>& parts);

// The parts between separators, empty ones kept: split("a..b", '.') is {"a", "", "b"}.
std::vector<std::string> split(std::string_view s, char separator);

}  // namespace edgetrain::input::text
