// See fill.hpp: the walk over the rows that fills the typed scenario.
#include "scenario/fill.hpp"

#include <string_view>

#include "input/text.hpp"
#include "scenario/load.hpp"

namespace edgetrain::scenario {
namespace {

using nlohmann::json;

const json* find_dotted(const json& obj, std::string_view rel) {
  const json* node = &obj;
  for (const auto& part : input::text::split(rel, '.')) {
    if (!node->is_object()) return nullptr;
    const auto it = node->find(part);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

// What a row's field takes when its key is absent from the resolved document: the default that
// holds whatever the other keys say (the last rule tried), if it is a value or null.
std::optional<json> absent_value(const KeySpec& k) {
  for (const DefaultRule& rule : k.defaults) {
    if (rule.when) continue;
    if (rule.kind == DefaultRule::Kind::Value) return rule.value;
    if (rule.kind == DefaultRule::Kind::Null) return json(nullptr);
    return std::nullopt;
  }
  return std::nullopt;
}

// Fills `root` from the rows directly in `section` ("" = the document, "devices[]" = one entry)
// and their sections, reading `scope` (the section's resolved object); list entries recurse with
// their own struct as the root.
void fill_scope(const json& scope, const std::string& section, const std::any& root) {
  const std::string prefix = section.empty() ? "" : section + ".";
  for (const KeySpec& k : schema_keys()) {
    if (!k.fill || k.path.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rel = k.path.substr(prefix.size());
    if (rel.find("[]") != std::string::npos) continue;  // a row of a list's entries
    const json* value = find_dotted(scope, rel);
    std::optional<json> absent;
    if (!value) {
      absent = absent_value(k);
      if (!absent) continue;
      value = &*absent;
    }
    if (k.fill.write) k.fill.write(root, *value);
    if (k.fill.entries && value->is_array()) {
      const std::vector<std::any> entries = k.fill.entries(root, value->size());
      for (size_t i = 0; i < entries.size(); ++i) fill_scope((*value)[i], k.path + "[]", entries[i]);
    }
  }
}

}  // namespace

Scenario typed_scenario(const json& resolved) {
  Scenario s{};
  fill_scope(resolved, "", std::any(&s));
  s.resolved = resolved;
  return s;
}

Scenario typed_defaults() { return typed_scenario(json::object()); }

}  // namespace edgetrain::scenario
