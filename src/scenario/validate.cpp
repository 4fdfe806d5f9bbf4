// Validation driven by the schema table (see validate.hpp). Three passes over a document:
// (1) every key present must be declared, (2) every declared key is checked or defaulted in
// table order, so conditions can look at keys resolved before them, (3) cross-key rules.
#include "scenario/validate.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <system_error>

#include "scenario/error.hpp"
#include "scenario/text.hpp"

namespace edgetrain::scenario {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::vector<std::string> split_dots(std::string_view s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    parts.emplace_back(s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

const json* get_dotted(const json& obj, std::string_view rel) {
  const json* node = &obj;
  for (const auto& part : split_dots(rel)) {
    if (!node->is_object()) return nullptr;
    auto it = node->find(part);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

void set_dotted(json& obj, std::string_view rel, json value) {
  json* node = &obj;
  for (const auto& part : split_dots(rel)) node = &(*node)[part];
  *node = std::move(value);
}

bool holds(const Condition& c, const json& top) {
  const json* v = get_dotted(top, c.key);
  if (!v || !v->is_string()) return false;
  const auto& s = v->get_ref<const std::string&>();
  return std::find(c.values.begin(), c.values.end(), s) != c.values.end();
}

bool in_range(double x, const Range& r) {
  if (r.lo && (r.lo_open ? !(x > *r.lo) : !(x >= *r.lo))) return false;
  if (r.hi && (r.hi_open ? !(x < *r.hi) : !(x <= *r.hi))) return false;
  return true;
}

std::string or_null(const KeySpec& k) { return k.nullable ? " or null" : ""; }

json check_integer(const KeySpec& k, const json& v, const std::string& at) {
  auto type_error = [&]() -> json {
    throw ScenarioError(at + ": expected " + integer_text(k) + or_null(k) + ", got " + text::show(v));
  };
  auto range_error = [&]() -> json {
    throw ScenarioError(at + ": must be " + integer_text(k) + or_null(k) + ", got " + text::show(v));
  };
  constexpr auto kMaxSigned = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if ((!k.wide_unsigned && u > kMaxSigned) || !in_range(static_cast<double>(u), k.range)) return range_error();
    return k.wide_unsigned ? json(u) : json(static_cast<int64_t>(u));
  }
  if (v.is_number_integer()) {
    const auto i = v.get<int64_t>();
    if ((k.wide_unsigned && i < 0) || !in_range(static_cast<double>(i), k.range)) return range_error();
    return k.wide_unsigned ? json(static_cast<uint64_t>(i)) : json(i);
  }
  if (v.is_number_float()) {
    // 32.0 or 1e3 are integers written as floats; 2.5 is not an integer at all.
    const double d = v.get<double>();
    if (d != std::floor(d)) return type_error();
    const double top = k.wide_unsigned ? 18446744073709551615.0 : 9223372036854775807.0;
    if ((k.wide_unsigned && d < 0) || d < -9223372036854775807.0 || d >= top || !in_range(d, k.range)) {
      return range_error();
    }
    return k.wide_unsigned ? json(static_cast<uint64_t>(d)) : json(static_cast<int64_t>(d));
  }
  return type_error();
}

std::string range_with_unit(const KeySpec& k) {
  std::string r = range_text(k);
  if (k.type == ValueType::Quantity && !unit_symbol(k.unit).empty()) r += " " + std::string(unit_symbol(k.unit));
  return r;
}

json check_path(const KeySpec& k, const json& v, const std::string& at, const ResolveContext& ctx, bool check_exists) {
  if (!v.is_string()) throw ScenarioError(at + ": expected a path (string), got " + text::show(v));
  const auto& s = v.get_ref<const std::string&>();
  if (s.empty()) throw ScenarioError(at + ": must not be empty");
  fs::path p(s);
  if (p.is_relative()) p = ctx.base_dir / p;
  p = p.lexically_normal();
  // "dir/" normalizes to "dir/" (empty file name); drop the slash so paths compare equal.
  if (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
  if (check_exists) {
    std::error_code ec;
    const auto st = fs::status(p, ec);
    const bool want_dir = k.path_kind == PathKind::Directory;
    if (!fs::exists(st)) {
      throw ScenarioError(at + ": " + (want_dir ? "directory" : "file") + " not found: " + p.string());
    }
    if (want_dir && !fs::is_directory(st)) throw ScenarioError(at + ": not a directory: " + p.string());
    if (!want_dir && fs::is_directory(st))
      throw ScenarioError(at + ": expected a file, found a directory: " + p.string());
  }
  return p.string();
}

json default_value(const KeySpec& k, const std::string& at, const json& scope, const json& top,
                   const ResolveContext& ctx) {
  const DefaultRule* rule = nullptr;
  for (const auto& r : k.defaults) {
    if (!r.when || holds(*r.when, top)) {
      rule = &r;
      break;
    }
  }
  if (!rule || rule->kind == DefaultRule::Kind::Required) {
    if (rule && rule->when) throw ScenarioError(at + ": required when " + condition_text(*rule->when));
    throw ScenarioError(at + ": required key is missing");
  }
  switch (rule->kind) {
    case DefaultRule::Kind::Value:
      // Defaults go through the same check as user values: that makes a default path absolute
      // and says clearly when it does not exist on this machine.
      try {
        return check_value(k, rule->value, at, ctx);
      } catch (const ScenarioError& e) {
        throw ScenarioError(std::string(e.what()) + " (this is the default; set " + at + ")");
      }
    case DefaultRule::Kind::NoLimit: return nullptr;
    case DefaultRule::Kind::FileStem: return ctx.file_stem.empty() ? std::string("scenario") : ctx.file_stem;
    case DefaultRule::Kind::SameAs: {
      const json* v = get_dotted(scope, rule->sibling);
      if (!v) throw ScenarioError(at + ": internal error: default refers to unresolved key " + rule->sibling);
      return *v;
    }
    case DefaultRule::Kind::Required: break;
  }
  return nullptr;
}

void resolve_scope(const json& src, const std::string& section, const std::string& at_prefix, json& out,
                   const json& top, const ResolveContext& ctx);

json resolve_entries(const KeySpec& k, const json& v, const std::string& at, const json& top,
                     const ResolveContext& ctx) {
  if (!v.is_array()) {
    throw ScenarioError(at + ": expected a list (each entry " + k.entry_doc + "), got " + text::show(v));
  }
  if (v.empty()) throw ScenarioError(at + ": must not be empty");
  json entries = json::array();
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string entry_at = at + "[" + std::to_string(i) + "]";
    json src;
    if (v[i].is_string()) {
      src = json{{k.shorthand, v[i]}};
    } else if (v[i].is_object()) {
      src = v[i];
    } else {
      throw ScenarioError(entry_at + ": expected " + k.entry_doc + ", got " + text::show(v[i]));
    }
    json entry = json::object();
    resolve_scope(src, k.path + "[]", entry_at + ".", entry, top, ctx);
    entries.push_back(std::move(entry));
  }
  return entries;
}

// Resolves the keys directly in `section` ("" = the document, "devices[]" = one entry), with
// their nested sections, from `src` into `out`. `top` is the resolved document so far.
void resolve_scope(const json& src, const std::string& section, const std::string& at_prefix, json& out,
                   const json& top, const ResolveContext& ctx) {
  const std::string prefix = section.empty() ? "" : section + ".";
  for (const auto& k : schema_keys()) {
    if (k.path.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rel = k.path.substr(prefix.size());
    if (rel.find("[]") != std::string::npos) continue;  // belongs to a list's entries
    const std::string at = at_prefix + rel;
    const json* raw = get_dotted(src, rel);
    if (k.applies_when && !holds(*k.applies_when, top)) {
      // Not used in this scenario (e.g. dataset.shape for files): still catch garbage, but keep
      // it out of the resolved document. Lenient so that sweeps can flip the deciding key.
      if (raw && !raw->is_null() && k.type != ValueType::EntryList) check_value(k, *raw, at, ctx, false);
      continue;
    }
    json value;
    if (raw && k.type == ValueType::EntryList) {
      value = resolve_entries(k, *raw, at, top, ctx);
    } else if (raw) {
      value = check_value(k, *raw, at, ctx);
    } else {
      value = default_value(k, at, out, top, ctx);
    }
    set_dotted(out, rel, std::move(value));
  }
}

// Pass 1: every key present must be declared (or be a declared section).
void check_keys(const json& obj, const std::string& section, const std::string& at) {
  for (const auto& [key, value] : obj.items()) {
    const std::string at_key = at.empty() ? key : at + "." + key;
    if (key.find_first_of(".[]") != std::string::npos || key.empty()) {
      // {"training.lr": 0.1} would otherwise be silently ignored.
      throw ScenarioError(unknown_key_message(section, at, key));
    }
    const std::string full = section.empty() ? key : section + "." + key;
    if (const KeySpec* k = find_key(full)) {
      if (k->type == ValueType::EntryList && value.is_array()) {
        for (size_t i = 0; i < value.size(); ++i) {
          if (value[i].is_object()) check_keys(value[i], full + "[]", at_key + "[" + std::to_string(i) + "]");
        }
      }
    } else if (is_section(full)) {
      if (!value.is_object()) {
        throw ScenarioError(at_key + ": expected an object (with keys " + text::join(child_names(full), ", ") +
                            "), got " + text::show(value));
      }
      check_keys(value, full, at_key);
    } else {
      throw ScenarioError(unknown_key_message(section, at, key));
    }
  }
}

}  // namespace

json check_value(const KeySpec& k, const json& v, const std::string& at, const ResolveContext& ctx, bool check_exists) {
  if (v.is_null() && k.nullable) return nullptr;
  switch (k.type) {
    case ValueType::String:
      if (!v.is_string()) throw ScenarioError(at + ": expected a string, got " + text::show(v));
      if (v.get_ref<const std::string&>().empty()) throw ScenarioError(at + ": must not be empty");
      return v;
    case ValueType::Integer: return check_integer(k, v, at);
    case ValueType::Number: {
      if (!v.is_number()) throw ScenarioError(at + ": expected a number" + or_null(k) + ", got " + text::show(v));
      const double d = v.get<double>();
      if (!in_range(d, k.range)) throw ScenarioError(at + ": must be " + range_text(k) + ", got " + text::show(v));
      return d;
    }
    case ValueType::Boolean:
      if (!v.is_boolean()) throw ScenarioError(at + ": expected true or false, got " + text::show(v));
      return v;
    case ValueType::Enum: {
      if (v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        if (std::find(k.choices.begin(), k.choices.end(), s) != k.choices.end()) return v;
      }
      std::string msg = at + ": must be one of " + text::join(k.choices, ", ") + "; got " + text::show(v);
      if (v.is_string() && k.choices.size() > 1) {  // with one choice the list says it all
        if (auto near = text::closest(v.get_ref<const std::string&>(), k.choices)) {
          msg += " (did you mean \"" + *near + "\"?)";
        }
      }
      throw ScenarioError(msg);
    }
    case ValueType::Quantity: {
      const double d = parse_quantity(v, k.unit, at);
      if (!in_range(d, k.range)) {
        throw ScenarioError(at + ": must be " + range_with_unit(k) + ", got " + text::show(v));
      }
      return d;
    }
    case ValueType::IntList: {
      const std::string what =
          "a list of " + (k.list_size ? std::to_string(*k.list_size) + " " : std::string()) + "integers";
      if (!v.is_array()) throw ScenarioError(at + ": expected " + what + ", got " + text::show(v));
      if (k.list_size && v.size() != *k.list_size) {
        throw ScenarioError(at + ": must have " + std::to_string(*k.list_size) + " entries, got " +
                            std::to_string(v.size()) + " (" + text::show(v) + ")");
      }
      json out = json::array();
      for (size_t i = 0; i < v.size(); ++i) out.push_back(check_integer(k, v[i], at + "[" + std::to_string(i) + "]"));
      return out;
    }
    case ValueType::Path: return check_path(k, v, at, ctx, check_exists);
    case ValueType::EntryList: break;  // resolved by resolve_entries
  }
  throw ScenarioError(at + ": internal error: no checker for this key type");
}

std::string unknown_key_message(std::string_view section, const std::string& at_parent, const std::string& key) {
  // Inside a list entry the path ends with "]": name the key in quotes after it.
  const bool in_entry = !at_parent.empty() && at_parent.back() == ']';
  std::string msg = in_entry ? at_parent + ": unknown key " + text::show(key)
                             : (at_parent.empty() ? key : at_parent + "." + key) + ": unknown key";
  const auto siblings = child_names(section);
  if (key.find('.') != std::string::npos) {
    const std::string full = section.empty() ? key : std::string(section) + "." + key;
    if (find_key(full) || is_section(full)) return msg + " (write nested objects, not dotted names)";
  }
  if (auto near = text::closest(key, siblings)) return msg + " (did you mean \"" + *near + "\"?)";
  // A key put in the wrong section, e.g. "batch_size" at the top level.
  if (section.find("[]") == std::string_view::npos) {
    std::vector<std::string> leaves;
    std::vector<std::string> paths;
    for (const auto& k : schema_keys()) {
      if (k.path.find("[]") != std::string::npos) continue;
      const size_t dot = k.path.rfind('.');
      const std::string parent = dot == std::string::npos ? "" : k.path.substr(0, dot);
      if (parent == section) continue;
      leaves.push_back(k.path.substr(dot == std::string::npos ? 0 : dot + 1));
      paths.push_back(k.path);
    }
    if (auto near = text::closest(key, leaves)) {
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (leaves[i] == *near) return msg + " (did you mean \"" + paths[i] + "\"?)";
      }
    }
  }
  return msg + " (expected one of: " + text::join(siblings, ", ") + ")";
}

json resolve_document(const json& doc, const ResolveContext& ctx) {
  if (!doc.is_object()) {
    throw ScenarioError("scenario: expected a JSON object at the top level, got " + text::show(doc));
  }
  check_keys(doc, "", "");
  json out = json::object();
  resolve_scope(doc, "", "", out, out, ctx);
  for (const auto& rule : schema_rules()) rule.check(out);
  return out;
}

}  // namespace edgetrain::scenario
