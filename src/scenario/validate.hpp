// Validation generated from the schema table (schema.hpp): checks a scenario document key by
// key, in table order, and returns it resolved (defaults filled in, quantities as SI numbers,
// paths absolute, device entries as objects). Every error message starts with the JSON path.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "scenario/platform_source.hpp"
#include "scenario/schema.hpp"

namespace edgetrain::scenario {

struct ResolveContext {
  std::filesystem::path base_dir;  // absolute; relative paths in the scenario are resolved here
  std::string file_stem;           // the default of "name"
  // The platform as resolving finds it (read when a what-if, a fleet or a device selector needs it).
  std::shared_ptr<PlatformSource> platform = std::make_shared<PlatformSource>();
};

// Throws ScenarioError on the first problem: unknown keys first (so a typo of a required key
// gets a "did you mean", not "required"), then each key in table order, then the cross-key rules.
nlohmann::json resolve_document(const nlohmann::json& doc, const ResolveContext& ctx);

// One given value of `key`, checked and normalized; `at` is its JSON path for messages.
// check_exists=false skips path existence (for keys that do not apply to this scenario).
nlohmann::json check_value(const KeySpec& key, const nlohmann::json& value, const std::string& at,
                           const ResolveContext& ctx, bool check_exists = true);

// The unknown-key message for `key` found in `section` (schema path, "" = top level, or
// "devices[]"), whose JSON path is `at_parent`; suggests the nearest declared key.
std::string unknown_key_message(std::string_view section, const std::string& at_parent, const std::string& key);

// Throws the unknown-key error unless `key` may appear in a rate object (rate_keys()) whose
// JSON path is `at_rate`.
void check_rate_key(const std::string& at_rate, const std::string& key);

}  // namespace edgetrain::scenario
