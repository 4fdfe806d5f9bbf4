// See rows.hpp.
#include "scenario/rows.hpp"

#include <optional>

namespace edgetrain::scenario {

KeySpec row(std::string path, ValueType type, std::string description) {
  KeySpec k;
  k.path = std::move(path);
  k.type = type;
  k.description = std::move(description);
  return k;
}
KeySpec string_key(std::string path, std::string d) { return row(std::move(path), ValueType::String, std::move(d)); }
KeySpec integer_key(std::string path, std::string d) { return row(std::move(path), ValueType::Integer, std::move(d)); }
KeySpec number_key(std::string path, std::string d) { return row(std::move(path), ValueType::Number, std::move(d)); }
KeySpec int_list_key(std::string path, std::string d) { return row(std::move(path), ValueType::IntList, std::move(d)); }
KeySpec enum_key(std::string path, std::vector<std::string> choices, std::string d) {
  KeySpec k = row(std::move(path), ValueType::Enum, std::move(d));
  k.choices = std::move(choices);
  return k;
}
KeySpec quantity_key(std::string path, Unit unit, std::string d) {
  KeySpec k = row(std::move(path), ValueType::Quantity, std::move(d));
  k.unit = unit;
  return k;
}
KeySpec path_key(std::string path, PathKind kind, std::string d) {
  KeySpec k = row(std::move(path), ValueType::Path, std::move(d));
  k.path_kind = kind;
  return k;
}
KeySpec entry_list_key(std::string path, std::string shorthand, std::string entry_doc, std::string d) {
  KeySpec k = row(std::move(path), ValueType::EntryList, std::move(d));
  k.shorthand = std::move(shorthand);
  k.entry_doc = std::move(entry_doc);
  return k;
}
KeySpec section_key(std::string path, std::string d) { return row(std::move(path), ValueType::Section, std::move(d)); }
KeySpec boolean_key(std::string path, std::string d) { return row(std::move(path), ValueType::Boolean, std::move(d)); }
KeySpec literal_key(std::string path, std::vector<nlohmann::json> literals, std::string d) {
  KeySpec k = row(std::move(path), ValueType::Literal, std::move(d));
  k.literals = std::move(literals);
  return k;
}
KeySpec rate_key(std::string path, std::string d) { return row(std::move(path), ValueType::Rate, std::move(d)); }
KeySpec interval_list_key(std::string path, std::string d) {
  return row(std::move(path), ValueType::IntervalList, std::move(d));
}
Condition when(std::string key, std::vector<std::string> values) {
  Condition c;
  c.key = std::move(key);
  c.values = std::move(values);
  return c;
}
Condition when_not(std::string key, std::vector<std::string> values) {
  Condition c = when(std::move(key), std::move(values));
  c.negated = true;
  return c;
}

std::vector<KeySpec> moved_rows(const std::vector<KeySpec>& table, const std::string& from, const std::string& to) {
  auto inside = [&](const std::string& key) { return key == from || key.rfind(from + ".", 0) == 0; };
  auto moved = [&](std::optional<Condition> c) {
    if (c && inside(c->key)) c->key = to + c->key.substr(from.size());
    return c;
  };
  std::vector<KeySpec> rows;
  for (const auto& k : table) {
    if (!inside(k.path)) continue;
    KeySpec r = k;
    r.path = to + k.path.substr(from.size());
    r.applies_when = moved(k.applies_when);
    for (auto& d : r.defaults) d.when = moved(d.when);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<KeySpec> per_entry_overrides(const std::vector<KeySpec>& table, const std::string& section,
                                         const std::string& entry, std::string section_doc, std::string null_means) {
  std::vector<KeySpec> rows = moved_rows(table, section, entry + "." + section);
  for (auto& r : rows) {
    r.inherits = r.path.substr(entry.size() + 1);
    if (r.inherits == section) {
      r.description = section_doc;
      r.null_means = null_means;
    } else {
      r.description = "This device's `" + r.inherits + "`.";
    }
  }
  return rows;
}

std::string entry_at(const std::string& list, size_t i) { return list + "[" + std::to_string(i) + "]"; }

}  // namespace edgetrain::scenario
