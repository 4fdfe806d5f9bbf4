// The schema machinery and everything generated from the table except validation itself
// (validate.cpp) and the typed scenario (fill.cpp): the row builders, lookups, phrases for
// messages, and the Markdown documentation. The rows are in scenario/keys/.
#include "scenario/schema.hpp"

#include <algorithm>
#include <cmath>

#include "input/text.hpp"
#include "scenario/keys/table.hpp"

namespace edgetrain::scenario {

namespace text = input::text;

KeySpec& KeySpec::def(nlohmann::json v) {
  defaults.push_back({std::nullopt, DefaultRule::Kind::Value, std::move(v), {}});
  return *this;
}
KeySpec& KeySpec::def_if(Condition when, nlohmann::json v) {
  defaults.push_back({std::move(when), DefaultRule::Kind::Value, std::move(v), {}});
  return *this;
}
KeySpec& KeySpec::required() {
  defaults.push_back({std::nullopt, DefaultRule::Kind::Required, nullptr, {}});
  return *this;
}
KeySpec& KeySpec::required_if(Condition when) {
  defaults.push_back({std::move(when), DefaultRule::Kind::Required, nullptr, {}});
  return *this;
}
KeySpec& KeySpec::no_limit() { return null_default("no limit"); }
KeySpec& KeySpec::null_default(std::string means) {
  or_null(std::move(means));
  defaults.push_back({std::nullopt, DefaultRule::Kind::Null, nullptr, {}});
  return *this;
}
KeySpec& KeySpec::off_when_null(std::string means) {
  null_default(std::move(means));
  null_is_off = true;
  return *this;
}
KeySpec& KeySpec::or_null(std::string means) {
  nullable = true;
  null_means = std::move(means);
  return *this;
}
KeySpec& KeySpec::required_unless(std::string sibling_key) {
  defaults.push_back({std::nullopt, DefaultRule::Kind::RequiredUnless, nullptr, std::move(sibling_key)});
  return *this;
}
KeySpec& KeySpec::takes_precedence_over(std::string sibling_key) {
  overrides = std::move(sibling_key);
  return *this;
}
KeySpec& KeySpec::whole_number() {
  whole = true;
  return *this;
}
KeySpec& KeySpec::default_file_stem() {
  defaults.push_back({std::nullopt, DefaultRule::Kind::FileStem, nullptr, {}});
  return *this;
}
KeySpec& KeySpec::same_as(std::string sibling_key) {
  defaults.push_back({std::nullopt, DefaultRule::Kind::SameAs, nullptr, std::move(sibling_key)});
  return *this;
}
KeySpec& KeySpec::only_when(Condition when) {
  applies_when = std::move(when);
  return *this;
}
KeySpec& KeySpec::allowed_only_when(Condition when) {
  applies_when = std::move(when);
  error_unless_applies = true;
  return *this;
}
KeySpec& KeySpec::must_exist_only_when(Condition when) {
  exists_when = std::move(when);
  return *this;
}
KeySpec& KeySpec::at_least(double lo) {
  range.lo = lo;
  range.lo_open = false;
  return *this;
}
KeySpec& KeySpec::above(double lo) {
  range.lo = lo;
  range.lo_open = true;
  return *this;
}
KeySpec& KeySpec::at_most(double hi) {
  range.hi = hi;
  range.hi_open = false;
  return *this;
}
KeySpec& KeySpec::below(double hi) {
  range.hi = hi;
  range.hi_open = true;
  return *this;
}
KeySpec& KeySpec::size(size_t n) {
  list_size = n;
  return *this;
}
KeySpec& KeySpec::wide() {
  wide_unsigned = true;
  return *this;
}
KeySpec& KeySpec::empty_allowed() {
  may_be_empty = true;
  return *this;
}
KeySpec& KeySpec::limit(double hi, std::string why) {
  max = hi;
  max_why = std::move(why);
  return *this;
}
KeySpec& KeySpec::entries_limit(size_t n, std::string why) {
  max_entries = n;
  max_entries_why = std::move(why);
  return *this;
}
KeySpec& KeySpec::names(NameRule rule) {
  name_rule = rule;
  return *this;
}
KeySpec& KeySpec::part_of(std::string type_words) {
  part_of_value = true;
  type_doc = std::move(type_words);
  return *this;
}
KeySpec& KeySpec::selects_hosts() {
  host_selector = true;
  return *this;
}
KeySpec& KeySpec::resolved_by(Resolver r) {
  resolve = std::move(r);
  return *this;
}

namespace {

// A bound as written in the table: whole numbers in digits (1000000, not 1e+06).
std::string bound(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e16) return std::to_string(static_cast<int64_t>(v));
  return text::format_number(v);
}

std::string md_escape(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

const std::vector<RateForm>& rate_forms() {
  static const std::vector<RateForm> forms = {
      {"constant", {"value"}}, {"uniform", {"mean", "spread"}}, {"normal", {"mean", "std"}}, {"list", {"values"}}};
  return forms;
}

const std::vector<RatePreset>& rate_presets() {
  using nlohmann::json;
  // The ScaDLES paper's rate sets (samples per second).
  static const std::vector<RatePreset> presets = {
      {"S1", json{{"dist", "uniform"}, {"mean", 38.0}, {"spread", 24.0}}},
      {"S2", json{{"dist", "uniform"}, {"mean", 300.0}, {"spread", 112.0}}},
      {"S10", json{{"dist", "normal"}, {"mean", 64.0}, {"std", 24.0}}},
      {"S20", json{{"dist", "normal"}, {"mean", 256.0}, {"std", 28.0}}},
  };
  return presets;
}

const RatePreset* find_rate_preset(std::string_view name) {
  for (const auto& p : rate_presets()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

const std::vector<std::string>& rate_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k{"dist"};
    for (const auto& f : rate_forms()) {
      for (const auto& p : f.params) {
        if (std::find(k.begin(), k.end(), p) == k.end()) k.push_back(p);
      }
    }
    return k;
  }();
  return keys;
}

namespace {
std::string number_text(const nlohmann::json& v) {
  if (v.is_number()) return text::format_number(v.get<double>());
  if (v.is_array()) {
    std::vector<std::string> parts;
    for (const auto& e : v) parts.push_back(number_text(e));
    return "[" + text::join(parts, ", ") + "]";
  }
  return text::show(v);
}
}  // namespace

std::string rate_text(const nlohmann::json& r) {
  if (r.is_null()) return "none";
  if (r.is_number()) return number_text(r);
  if (r.is_string()) {
    const RatePreset* p = find_rate_preset(r.get<std::string>());
    return p ? p->name + " (" + rate_text(p->resolved) + ")" : r.get<std::string>();
  }
  if (!r.is_object() || !r.contains("dist")) return text::show(r);
  const std::string dist = r.at("dist").is_string() ? r.at("dist").get<std::string>() : text::show(r.at("dist"));
  if (dist == "constant" && r.contains("value")) return number_text(r.at("value"));
  std::string out = dist;
  for (const auto& f : rate_forms()) {
    if (f.dist != dist) continue;
    for (const auto& p : f.params) {
      if (r.contains(p)) out += ", " + p + " " + number_text(r.at(p));
    }
  }
  return out;
}

const std::vector<KeySpec>& schema_keys() {
  static const std::vector<KeySpec> table = keys::table_rows();
  return table;
}

const std::vector<Rule>& schema_rules() {
  static const std::vector<Rule> rules = keys::table_rules();
  return rules;
}

const KeySpec* find_key(std::string_view path) {
  for (const auto& k : schema_keys()) {
    if (k.path == path) return &k;
  }
  return nullptr;
}

bool is_section(std::string_view path) {
  if (path.empty()) return true;
  for (const auto& k : schema_keys()) {
    if (k.path.size() > path.size() && k.path.compare(0, path.size(), path) == 0 && k.path[path.size()] == '.') {
      return true;
    }
  }
  return false;
}

std::vector<std::string> child_names(std::string_view section) {
  std::vector<std::string> names;
  for (const auto& k : schema_keys()) {
    std::string_view rest = k.path;
    if (!section.empty()) {
      if (!(rest.size() > section.size() && rest.substr(0, section.size()) == section && rest[section.size()] == '.')) {
        continue;
      }
      rest.remove_prefix(section.size() + 1);
    }
    std::string name(rest.substr(0, rest.find('.')));
    if (name.size() > 2 && name.ends_with("[]")) name.resize(name.size() - 2);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

std::string condition_text(const Condition& c) {
  return c.key + (c.negated ? " is not " : " is ") + text::or_list(c.values);
}

std::string key_at(const std::string& key, const std::string& section, const std::string& at_prefix) {
  const std::string prefix = section + ".";
  return !section.empty() && key.rfind(prefix, 0) == 0 ? at_prefix + key.substr(prefix.size()) : key;
}

std::string condition_text_at(const Condition& c, const std::string& section, const std::string& at_prefix) {
  Condition moved = c;
  moved.key = key_at(c.key, section, at_prefix);
  return condition_text(moved);
}

std::string range_text(const KeySpec& key) {
  const Range& r = key.range;
  std::string t;
  if (r.lo && r.hi) {
    t = "in " + std::string(r.lo_open ? "(" : "[") + bound(*r.lo) + ", " + bound(*r.hi) + (r.hi_open ? ")" : "]");
  } else if (r.lo) {
    t = std::string(r.lo_open ? "> " : ">= ") + bound(*r.lo);
  } else if (r.hi) {
    t = std::string(r.hi_open ? "< " : "<= ") + bound(*r.hi);
  } else {
    return "";
  }
  if (key.type == ValueType::Quantity && !unit_symbol(key.unit).empty()) t += " " + std::string(unit_symbol(key.unit));
  return t;
}

bool is_duration(const KeySpec& key) { return key.type == ValueType::Quantity && key.unit == Unit::Seconds; }

std::string clock_text(const KeySpec& key) {
  if (!is_duration(key) || !key.range.lo || *key.range.lo != 0) return "";
  return std::string(key.range.lo_open ? "" : "0 or ") + "at least 1us (the simulator's clock resolution)";
}

std::string limit_text(const KeySpec& key) {
  if (!key.max) return "";
  std::string t = "at most " + bound(*key.max);
  if (key.type == ValueType::Quantity && !unit_symbol(key.unit).empty()) t += " " + std::string(unit_symbol(key.unit));
  return t + (key.max_why.empty() ? "" : " (" + key.max_why + ")");
}

std::string integer_text(const KeySpec& key) {
  const Range& r = key.range;
  // Integer bounds: an open bound is the next integer inwards.
  std::optional<double> lo = r.lo, hi = r.hi;
  if (lo && r.lo_open) lo = *lo + 1;
  if (hi && r.hi_open) hi = *hi - 1;
  if (lo && hi) return "an integer in [" + bound(*lo) + ", " + bound(*hi) + "]";
  if (lo && *lo == 1) return "a positive integer";
  if (lo && *lo == 0) return "a non-negative integer";
  if (lo) return "an integer >= " + bound(*lo);
  if (hi) return "an integer <= " + bound(*hi);
  return "an integer";
}

std::string type_text(const KeySpec& key) {
  std::string t = key.type_doc;
  if (!t.empty()) return key.nullable ? t + " or null" : t;
  switch (key.type) {
    case ValueType::String: t = "string"; break;
    case ValueType::Integer: t = "integer"; break;
    case ValueType::Number: t = "number"; break;
    case ValueType::Boolean: t = "boolean"; break;
    case ValueType::Enum: t = "enum"; break;
    case ValueType::Quantity: {
      t = std::string(unit_noun(key.unit));
      if (!unit_symbol(key.unit).empty()) t += " (" + std::string(unit_symbol(key.unit)) + ")";
      break;
    }
    case ValueType::IntList:
      t = key.list_size ? "list of " + std::to_string(*key.list_size) + " integers" : "list of integers";
      break;
    case ValueType::Path: t = key.path_kind == PathKind::File ? "path (file)" : "path (directory)"; break;
    case ValueType::EntryList: t = "list"; break;
    case ValueType::Section: t = "object"; break;
    case ValueType::Rate: t = "rate (samples/s)"; break;
    case ValueType::IntervalList: t = "list of [off_s, on_s] intervals (s)"; break;
    case ValueType::Platform: t = "path (file) or object"; break;
    case ValueType::SiteMap: t = "object"; break;
    case ValueType::Object: t = "object"; break;
    case ValueType::Literal: {
      std::vector<std::string> kinds;  // the JSON types of the literals, each once
      for (const auto& l : key.literals) {
        const std::string kind = l.is_number_integer() ? "integer" : l.is_number() ? "number" : l.type_name();
        if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
      }
      t = text::join(kinds, " or ");
      break;
    }
  }
  if (key.nullable) t += " or null";
  return t;
}

std::string literals_text(const KeySpec& key) {
  std::vector<std::string> dumped;
  for (const auto& l : key.literals) dumped.push_back(l.dump());
  return text::or_list(dumped);
}

std::string default_text(const KeySpec& key) {
  if (!key.inherits.empty()) return "inherited from `" + key.inherits + "`";
  std::vector<std::string> parts;
  for (const auto& rule : key.defaults) {
    std::string p;
    switch (rule.kind) {
      case DefaultRule::Kind::Value: p = "`" + rule.value.dump() + "`"; break;
      case DefaultRule::Kind::Required: p = "required"; break;
      case DefaultRule::Kind::Null: p = "`null` (" + key.null_means + ")"; break;
      case DefaultRule::Kind::FileStem: p = "the scenario file's name without extension"; break;
      case DefaultRule::Kind::SameAs: p = "same as `" + rule.sibling + "`"; break;
      case DefaultRule::Kind::RequiredUnless: p = "required unless `" + rule.sibling + "` is set"; break;
    }
    if (rule.when) p += " if " + condition_text(*rule.when);
    parts.push_back(p);
    if (!rule.when) break;  // later rules can never apply
  }
  // No rule matching means required; a key that applies only under a condition has its rules
  // written to cover that condition, so "otherwise" would only confuse there.
  if ((key.defaults.empty() || key.defaults.back().when) && !key.applies_when) {
    parts.push_back(parts.empty() ? "required" : "required otherwise");
  }
  return text::join(parts, "; ");
}

std::string schema_markdown() {
  std::string md;
  md += "| Key | Type / unit | Default | Description |\n";
  md += "|---|---|---|---|\n";
  for (const auto& k : schema_keys()) {
    std::string d = k.description;
    const std::string limit = limit_text(k).empty() ? "" : ", " + limit_text(k);
    if (k.type == ValueType::Integer) {
      d += " Must be " + integer_text(k) + limit + ".";
    } else if (k.type == ValueType::IntList) {
      if (k.max_entries) {
        d += " At most " + std::to_string(*k.max_entries) + " entries (" + k.max_entries_why + ").";
      }
      d += " Each entry must be " + integer_text(k) + limit + ".";
    } else if (!clock_text(k).empty()) {
      d += " Must be " + clock_text(k) + limit + ".";
    } else if (!range_text(k).empty()) {
      d += std::string(" Must be ") + (k.whole ? "a whole number " : "") + range_text(k) + limit + ".";
    }
    if (k.name_rule == NameRule::Run) {
      d += " 1 to " + std::to_string(kMaxRunNameLength) +
           " characters among letters, digits, `.`, `_` and `-`, not `.` or `..` (one folder name).";
    }
    if (k.name_rule == NameRule::Device) {
      d += " 1 to " + std::to_string(kMaxDeviceNameLength) +
           " printable ASCII characters, no comma or double quote, no space at either end.";
    }
    if (k.type == ValueType::Quantity) {
      d += " Accepts a number in " + std::string(unit_symbol(k.unit)) + " or a string like `\"" +
           std::string(unit_example(k.unit)) + "\"`.";
    }
    if (k.type == ValueType::Rate && k.inherits.empty()) {
      std::vector<std::string> presets;
      for (const auto& p : rate_presets()) presets.push_back("`" + p.name + "` = " + rate_text(p.resolved));
      d += " Presets (the ScaDLES rate sets): " + text::join(presets, "; ") + ".";
    }
    if (k.type == ValueType::Rate && !k.inherits.empty()) d += " Same forms as `" + k.inherits + "`.";
    if (k.type == ValueType::Enum) {
      std::vector<std::string> quoted;
      for (const auto& c : k.choices) quoted.push_back("`" + c + "`");
      d += " One of " + text::join(quoted, ", ") + ".";
    }
    if (k.type == ValueType::Literal) {
      std::vector<std::string> quoted;
      for (const auto& l : k.literals) {
        const std::string literal = l.dump();  // named: GCC 12 -Wrestrict false positive otherwise
        quoted.push_back("`" + literal + "`");
      }
      d += " One of " + text::join(quoted, ", ") + ".";
    }
    if (k.type == ValueType::Path) {
      d += " Relative to the scenario file; must exist" +
           (k.exists_when ? " when " + condition_text(*k.exists_when) : std::string()) + ".";
    }
    if (k.type == ValueType::EntryList && !k.shorthand.empty()) {
      d += " An entry may be written as a plain string, meaning `{\"" + k.shorthand + "\": string}`.";
    }
    if (k.type == ValueType::EntryList && k.may_be_empty) d += " May be empty.";
    if (k.type == ValueType::IntervalList) {
      d += " Each interval [off_s, on_s) in s (numbers, or strings like `\"";
      d += unit_example(Unit::Seconds);
      d += "\"`): 0 <= off_s < on_s <= 1000000000 s, in time order, neither overlapping nor touching; each "
           "interval and each gap between two lasts at least 1us (the simulator's clock resolution).";
    }
    if (k.nullable) d += " `null` = " + k.null_means + ".";
    if (k.applies_when && k.error_unless_applies) {
      d += " Allowed only when " + condition_text(*k.applies_when) + " (an error otherwise).";
    } else if (k.applies_when) {
      d += " Used only when " + condition_text(*k.applies_when) + " (ignored otherwise).";
    }
    md += "| `" + md_escape(k.path) + "` | " + md_escape(type_text(k)) + " | " + md_escape(default_text(k)) + " | " +
          md_escape(d) + " |\n";
  }
  md += "\nRules across keys:\n\n";
  for (const auto& r : schema_rules()) md += "- `" + r.path + "`: " + r.description + "\n";
  md += "- Unknown keys are errors (with a suggestion for likely typos).\n";
  md += "\nUnits: a JSON number is in the base unit; a string may carry a unit.\n\n";
  for (Unit u : {Unit::Seconds, Unit::Bytes, Unit::Flops, Unit::BitsPerSecond, Unit::Count}) {
    const std::string symbol(unit_symbol(u));
    md += "- " + std::string(unit_noun(u)) + (symbol.empty() ? "" : " (base " + symbol + ")") + ": " +
          unit_suffixes(u) + ", e.g. `\"" + std::string(unit_example(u)) + "\"`\n";
  }
  return md;
}

}  // namespace edgetrain::scenario
