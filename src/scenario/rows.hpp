// What the key files (scenario/keys/) write their rows with: one constructor per value type,
// conditions, copies of rows moved to another section, and the reasons for limits that several
// concerns share. With fill.hpp, for the field each row fills.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scenario/fill.hpp"
#include "scenario/scenario.hpp"
#include "scenario/schema.hpp"

namespace edgetrain::scenario {

KeySpec row(std::string path, ValueType type, std::string description);
KeySpec string_key(std::string path, std::string d);
KeySpec integer_key(std::string path, std::string d);
KeySpec number_key(std::string path, std::string d);
KeySpec int_list_key(std::string path, std::string d);
KeySpec enum_key(std::string path, std::vector<std::string> choices, std::string d);
KeySpec quantity_key(std::string path, Unit unit, std::string d);
KeySpec path_key(std::string path, PathKind kind, std::string d);
KeySpec entry_list_key(std::string path, std::string shorthand, std::string entry_doc, std::string d);
KeySpec section_key(std::string path, std::string d);
KeySpec boolean_key(std::string path, std::string d);
KeySpec literal_key(std::string path, std::vector<nlohmann::json> literals, std::string d);
KeySpec rate_key(std::string path, std::string d);
KeySpec interval_list_key(std::string path, std::string d);

// Holds when `key` is one of `values` (when_not: none of them).
Condition when(std::string key, std::vector<std::string> values);
Condition when_not(std::string key, std::vector<std::string> values);

// Why some sizes have their upper limit (docs/reference/limits.md quotes these). The limits
// keep every product of sizes (samples x values x bytes, widths x widths) far within int64 and
// every allocation they lead to sane; what fits this machine's memory is checked per run.
inline constexpr const char* kWhySamples =
    "sample counts and indices stay far within int64; the dataset is held in memory";
inline constexpr const char* kWhyCount =
    "a count no run reaches; stays exact in the double arithmetic of rates and means";

// Copies of the rows of `table` at or below `from` ("compression", "stream") moved to `to`
// ("compression.downlink", "devices[].stream"): same types, ranges and defaults, conditions on
// keys at or below `from` moved along. Callers adjust descriptions and defaults.
std::vector<KeySpec> moved_rows(const std::vector<KeySpec>& table, const std::string& from, const std::string& to);

// The rows "<entry>.<path>" that override, per list entry, the rows of the global section
// `section` (the section row itself included): same type, range and defaults, conditions
// moved into the entry; `section_doc` describes the entry's section row.
std::vector<KeySpec> per_entry_overrides(const std::vector<KeySpec>& table, const std::string& section,
                                         const std::string& entry, std::string section_doc, std::string null_means);

// "devices[2]": the JSON path of entry i of the list `list`, for messages.
std::string entry_at(const std::string& list, size_t i);

// Whether `key` of a resolved section holds a value (not absent, not null: a section left off).
inline bool is_given(const nlohmann::json& section, const char* key) {
  return section.is_object() && section.contains(key) && !section.at(key).is_null();
}

// applies_on_arrival (scenario.hpp) of a resolved document's `training` section, for the rules that
// run before the typed scenario exists (aggregation is resolved only for local-sgd).
inline bool applies_on_arrival(const nlohmann::json& training) {
  const auto& mode = training.at("mode").get_ref<const std::string&>();
  return applies_on_arrival(mode, mode == "local-sgd" ? training.at("aggregation").get_ref<const std::string&>()
                                                      : std::string());
}

}  // namespace edgetrain::scenario
