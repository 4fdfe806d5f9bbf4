// Validation driven by the schema table (see validate.hpp). Three passes over a document:
// (1) every key present must be declared, (2) every declared key is checked or defaulted in
// table order, so conditions can look at keys resolved before them, (3) cross-key rules.
#include "scenario/validate.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <system_error>

#include "scenario/device_selector.hpp"
#include "scenario/error.hpp"
#include "input/text.hpp"
#include "util/limits.hpp"

namespace edgetrain::scenario {

namespace text = input::text;
using input::parse_quantity;
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const json* get_dotted(const json& obj, std::string_view rel) {
  const json* node = &obj;
  for (const auto& part : text::split(rel, '.')) {
    if (!node->is_object()) return nullptr;
    auto it = node->find(part);
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

void set_dotted(json& obj, std::string_view rel, json value) {
  json* node = &obj;
  for (const auto& part : text::split(rel, '.')) node = &(*node)[part];
  *node = std::move(value);
}

void erase_dotted(json& obj, std::string_view rel) {
  const auto parts = text::split(rel, '.');
  json* node = &obj;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (!node->is_object() || !node->contains(parts[i])) return;
    node = &(*node)[parts[i]];
  }
  if (node->is_object()) node->erase(parts.back());
}

// The path of `sibling` next to `rel` ("stream.rate", "trace" -> "stream.trace").
std::string sibling_of(const std::string& rel, const std::string& sibling) {
  const size_t dot = rel.rfind('.');
  return dot == std::string::npos ? sibling : rel.substr(0, dot + 1) + sibling;
}

// Where the key `key` (a schema path) lives while resolving `section` ("" or "devices[]"):
// keys of the section are looked up in its resolved object `scope`, others in the document.
const json* lookup(const std::string& key, const json& top, const std::string& section, const json& scope) {
  const std::string prefix = section + ".";
  if (!section.empty() && key.rfind(prefix, 0) == 0) return get_dotted(scope, key.substr(prefix.size()));
  return get_dotted(top, key);
}

bool holds(const Condition& c, const json& top, const std::string& section, const json& scope) {
  const json* v = lookup(c.key, top, section, scope);
  if (!v || !v->is_string()) return false;
  const auto& s = v->get_ref<const std::string&>();
  return (std::find(c.values.begin(), c.values.end(), s) != c.values.end()) != c.negated;
}

// A row marked allowed_only_when whose condition does not hold, given a value anyway.
[[noreturn]] void not_allowed(const KeySpec& k, const std::string& at, const std::string& section,
                              const std::string& at_prefix, const json& top, const json& scope) {
  const Condition& c = *k.applies_when;
  const json* v = lookup(c.key, top, section, scope);
  throw ScenarioError(at + ": allowed only when " + condition_text_at(c, section, at_prefix) + " (here " +
                      key_at(c.key, section, at_prefix) + " is " + (v ? text::show(*v) : std::string("not set")) + ")");
}

bool in_range(double x, const Range& r) {
  if (r.lo && (r.lo_open ? !(x > *r.lo) : !(x >= *r.lo))) return false;
  if (r.hi && (r.hi_open ? !(x < *r.hi) : !(x <= *r.hi))) return false;
  return true;
}

std::string or_null(const KeySpec& k) { return k.nullable ? " or null" : ""; }

json check_integer_range(const KeySpec& k, const json& v, const std::string& at) {
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

// The value against the key's documented upper limit (KeySpec::max).
void check_limit(const KeySpec& k, double x, const json& v, const std::string& at) {
  if (k.max && x > *k.max) throw ScenarioError(at + ": must be " + limit_text(k) + ", got " + text::show(v));
}

// A duration against the simulator's clock: 0 where the range allows it, else >= 1us.
void check_clock(const KeySpec& k, double seconds, const json& v, const std::string& at) {
  if (!is_duration(k) || seconds == 0 || seconds >= util::kClockResolutionS) return;
  throw ScenarioError(at + ": must be " + clock_text(k) + ", got " + text::show(v) + (v.is_number() ? " s" : ""));
}

json check_integer(const KeySpec& k, const json& v, const std::string& at) {
  json out = check_integer_range(k, v, at);
  check_limit(k, out.is_number_unsigned() ? static_cast<double>(out.get<uint64_t>()) : out.get<double>(), v, at);
  return out;
}

// Names that become a folder (NameRule::Run) or a CSV cell and a mailbox (NameRule::Device).
void check_name(NameRule rule, const std::string& s, const std::string& at) {
  if (rule == NameRule::Any) return;
  const bool run = rule == NameRule::Run;
  const size_t max = run ? kMaxRunNameLength : kMaxDeviceNameLength;
  if (s.size() > max) {
    throw ScenarioError(at + ": at most " + std::to_string(max) + " characters, got " + std::to_string(s.size()) +
                        " (" + text::show(s) + ")");
  }
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const bool ok =
        run ? (std::isalnum(c) || c == '.' || c == '_' || c == '-') : (c >= 0x20 && c < 0x7f && c != ',' && c != '"');
    if (ok) continue;
    char code[8];
    std::snprintf(code, sizeof code, "0x%02x", c);
    const std::string shown = c >= 0x20 && c < 0x7f ? "'" + std::string(1, s[i]) + "'" : std::string("byte ") + code;
    throw ScenarioError(at + ": " + shown + " at character " + std::to_string(i + 1) + " is not allowed (" +
                        (run ? "a run name is one folder name: letters, digits, '.', '_' and '-'"
                             : "a device name is printable ASCII without ',' or '\"', as it goes into CSV cells") +
                        "), got " + text::show(s));
  }
  if (run && (s == "." || s == "..")) {
    throw ScenarioError(at + ": " + text::show(s) +
                        " is not a folder name of its own (the results go to results/<name>)");
  }
  if (!run && (s.front() == ' ' || s.back() == ' ')) {
    throw ScenarioError(at + ": no space at either end, got " + text::show(s));
  }
}

std::string max_rate_text() {
  return "must be at most " + text::format_number(util::kMaxRate) +
         " samples/s (sample counts over a whole run stay within int64)";
}

// A stream rate (ValueType::Rate): a number > 0, a preset name, or one of the object forms.
// Resolved: a preset stays its name; anything else becomes its object form with every
// parameter a number, e.g. 5 -> {"dist": "constant", "value": 5.0}.
json check_rate(const json& v, const std::string& at) {
  auto presets = [] {  // for messages
    std::vector<std::string> names;
    for (const auto& p : rate_presets()) names.push_back(p.name);
    return text::join(names, ", ");
  };
  auto positive = [](const json& x) { return x.is_number() && x.get<double>() > 0 && std::isfinite(x.get<double>()); };
  // Every rate, and every parameter that scales one, is at most util::kMaxRate; a rate (not a
  // spread) at least util::kMinRate.
  auto bounded = [](const json& x, const std::string& x_at, bool rate = true) {
    if (x.get<double>() > util::kMaxRate) throw ScenarioError(x_at + ": " + max_rate_text() + ", got " + text::show(x));
    if (rate && x.get<double>() < util::kMinRate) {
      throw ScenarioError(x_at + ": must be at least " + text::format_number(util::kMinRate) +
                          " samples/s (one sample within the longest run, 10^9 s), got " + text::show(x));
    }
  };
  if (v.is_number()) {
    if (!positive(v)) throw ScenarioError(at + ": must be > 0, got " + text::show(v));
    bounded(v, at);
    return json{{"dist", "constant"}, {"value", v.get<double>()}};
  }
  if (v.is_string()) {
    const auto& name = v.get_ref<const std::string&>();
    if (find_rate_preset(name)) return v;
    std::string msg = at + ": unknown preset " + text::show(v) + " (presets: " + presets();
    for (const auto& p : rate_presets()) {
      if (text::edit_distance(name, p.name) == 0) msg += "; did you mean \"" + p.name + "\"?";  // only the case differs
    }
    char* end = nullptr;
    (void)std::strtod(name.c_str(), &end);
    if (!name.empty() && end == name.c_str() + name.size()) msg += "; a constant rate is a number, not a string";
    throw ScenarioError(msg + ")");
  }
  if (!v.is_object()) {
    throw ScenarioError(at + ": expected a rate: a number of samples/s, a preset (" + presets() +
                        ") or an object {\"dist\": ...}, got " + text::show(v));
  }
  for (const auto& [key, value] : v.items()) check_rate_key(at, key);
  std::vector<std::string> dists;
  for (const auto& f : rate_forms()) dists.push_back(f.dist);
  if (!v.contains("dist")) {
    throw ScenarioError(at + ".dist: required key is missing (one of " + text::join(dists, ", ") + ")");
  }
  const json& dist = v.at("dist");
  const RateForm* form = nullptr;
  for (const auto& f : rate_forms()) {
    if (dist.is_string() && dist.get_ref<const std::string&>() == f.dist) form = &f;
  }
  if (!form) {
    std::string msg = at + ".dist: must be one of " + text::join(dists, ", ") + "; got " + text::show(dist);
    if (dist.is_string()) {
      if (auto near = text::closest(dist.get_ref<const std::string&>(), dists)) {
        msg += " (did you mean \"" + *near + "\"?)";
      }
    }
    throw ScenarioError(msg);
  }
  const std::string takes = "dist " + form->dist + " takes " + text::join(form->params, ", ");
  for (const auto& [key, value] : v.items()) {
    if (key != "dist" && std::find(form->params.begin(), form->params.end(), key) == form->params.end()) {
      throw ScenarioError(at + "." + key + ": not used by dist " + form->dist + " (" + takes + ")");
    }
  }
  json out{{"dist", form->dist}};
  for (const auto& p : form->params) {
    const std::string p_at = at + "." + p;
    if (!v.contains(p)) throw ScenarioError(p_at + ": required key is missing (" + takes + ")");
    const json& x = v.at(p);
    if (p == "values") {
      if (!x.is_array()) throw ScenarioError(p_at + ": expected a list of numbers > 0, got " + text::show(x));
      if (x.empty()) throw ScenarioError(p_at + ": must not be empty");
      json list = json::array();
      for (size_t i = 0; i < x.size(); ++i) {
        const std::string e_at = p_at + "[" + std::to_string(i) + "]";
        if (!x[i].is_number()) throw ScenarioError(e_at + ": expected a number, got " + text::show(x[i]));
        if (!positive(x[i])) throw ScenarioError(e_at + ": must be > 0, got " + text::show(x[i]));
        bounded(x[i], e_at);
        list.push_back(x[i].get<double>());
      }
      out[p] = std::move(list);
      continue;
    }
    if (!x.is_number()) throw ScenarioError(p_at + ": expected a number, got " + text::show(x));
    const double d = x.get<double>();
    const bool may_be_zero = p == "spread" || p == "std";
    if (may_be_zero ? !(d >= 0 && std::isfinite(d)) : !positive(x)) {
      throw ScenarioError(p_at + ": must be " + (may_be_zero ? ">= 0" : "> 0") + ", got " + text::show(x));
    }
    bounded(x, p_at, !may_be_zero);
    out[p] = d;
  }
  if (form->dist == "uniform" && !(out["spread"].get<double>() < out["mean"].get<double>())) {
    // Otherwise the low end of [mean - spread, mean + spread] is not a positive rate.
    throw ScenarioError(at + ".spread: must be < " + at + ".mean (" + text::show(v.at("mean")) + "), got " +
                        text::show(v.at("spread")));
  }
  if (form->dist == "uniform" && out["mean"].get<double>() + out["spread"].get<double>() > util::kMaxRate) {
    throw ScenarioError(at + ": mean + spread (the fastest draw) " + max_rate_text() + ", got " +
                        text::format_number(out["mean"].get<double>() + out["spread"].get<double>()));
  }
  return out;
}

// A list of off intervals (ValueType::IntervalList): [[off_s, on_s], ...], each bound a number
// of seconds or a duration string, 0 <= off_s < on_s, in time order, neither overlapping nor
// touching (touching intervals are one interval). Resolved: [[60.0, 120.0], ...].
json check_intervals(const json& v, const std::string& at) {
  if (!v.is_array()) {
    throw ScenarioError(at +
                        ": expected a list of [off_s, on_s] intervals in seconds, e.g. [[60, 120], [300, 330]], "
                        "got " +
                        text::show(v));
  }
  auto shown = [](double off, double on) {
    std::string s = "[";
    s += text::format_number(off);
    s += ", ";
    s += text::format_number(on);
    s += "]";
    return s;
  };
  json out = json::array();
  double prev_off = 0, prev_on = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string e_at = at + "[" + std::to_string(i) + "]";
    const json& e = v[i];
    if (!e.is_array() || e.size() != 2) {
      throw ScenarioError(e_at + ": expected [off_s, on_s] (two times in seconds), got " + text::show(e));
    }
    const double off = parse_quantity(e[0], Unit::Seconds, e_at + "[0]");
    const double on = parse_quantity(e[1], Unit::Seconds, e_at + "[1]");
    if (!std::isfinite(off) || !std::isfinite(on)) {
      throw ScenarioError(e_at + ": expected finite times, got " + text::show(e));
    }
    if (off < 0) throw ScenarioError(e_at + ": off_s must be >= 0, got " + shown(off, on));
    if (!(on > off)) throw ScenarioError(e_at + ": on_s must be > off_s, got " + shown(off, on));
    if (on - off < util::kClockResolutionS) {
      throw ScenarioError(e_at + ": must last at least 1us (the simulator's clock resolution), got " + shown(off, on));
    }
    if (on > util::kMaxTimeS) {
      throw ScenarioError(e_at + ": on_s must be at most " + text::format_number(util::kMaxTimeS) +
                          " s (the longest simulated time), got " + shown(off, on));
    }
    if (i > 0) {
      const std::string prev = at + "[" + std::to_string(i - 1) + "] " + shown(prev_off, prev_on);
      if (off < prev_off) {
        throw ScenarioError(e_at + ": " + shown(off, on) + " starts before " + prev +
                            "; list the intervals in time order");
      }
      if (off < prev_on) throw ScenarioError(e_at + ": " + shown(off, on) + " overlaps " + prev);
      if (off == prev_on) {
        throw ScenarioError(e_at + ": " + shown(off, on) + " starts where " + prev + " ends; merge them into one");
      }
      if (off - prev_on < util::kClockResolutionS) {
        throw ScenarioError(e_at + ": " + shown(off, on) +
                            " starts less than 1us (the simulator's clock resolution) "
                            "after " +
                            prev + " ends; merge them into one");
      }
    }
    out.push_back(json::array({off, on}));
    prev_off = off;
    prev_on = on;
  }
  return out;
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

// Where a key is resolved: the section ("" = document, "devices[]" = one entry), the JSON path
// prefix of its keys ("" or "devices[2]."), the resolved document so far and the section's own
// resolved object, and the raw document (for inherited sections).
struct Scope {
  const std::string& section;
  const std::string& at_prefix;
  const json& top;
  const json& raw_top;
  const ResolveContext& ctx;
};

// True if list entries override `k` (a row "devices[].stream.rate" inherits "stream.rate"):
// then `k` may be left out of the global section, and each entry must have it once its own
// keys are merged over the global ones.
bool inherited_by_entries(const KeySpec& k) {
  return std::any_of(schema_keys().begin(), schema_keys().end(),
                     [&](const KeySpec& r) { return r.inherits == k.path; });
}

// A required key missing from an entry that inherits it: which entry, and that neither it nor
// the global section gives one, e.g. ` (device "pi-3" sets no rate and the defaults in stream give none)`.
std::string inherited_note(const KeySpec& k, const std::string& rel, const json& out) {
  if (k.inherits.empty()) return "";
  const json* name = get_dotted(out, "name");
  const std::string leaf = rel.substr(rel.rfind('.') + 1);
  return " (device " + (name ? text::show(*name) : std::string("?")) + " sets no " + leaf + " and the defaults in " +
         k.inherits.substr(0, k.inherits.find('.')) + " give none)";
}

// A path key must name an existing file or folder unless its `exists_when` does not hold here
// (dataset.path of a timing-only run: nothing is read).
bool must_exist(const KeySpec& k, const Scope& sc, const json& out) {
  return !k.exists_when || holds(*k.exists_when, sc.top, sc.section, out);
}

json default_value(const KeySpec& k, const std::string& at, const std::string& rel, const json& out, const Scope& sc) {
  const DefaultRule* rule = nullptr;
  for (const auto& r : k.defaults) {
    if (!r.when || holds(*r.when, sc.top, sc.section, out)) {
      rule = &r;
      break;
    }
  }
  const bool required =
      !rule || rule->kind == DefaultRule::Kind::Required || rule->kind == DefaultRule::Kind::RequiredUnless;
  if (required && inherited_by_entries(k)) return nullptr;  // each entry is checked after merging
  // Defaults go through the same check as user values: that makes a default path absolute, a
  // default name checked, and says clearly when a default does not hold on this machine.
  auto checked = [&](const json& v, const std::string& origin) {
    try {
      return check_value(k, v, at, sc.ctx, must_exist(k, sc, out));
    } catch (const ScenarioError& e) {
      throw ScenarioError(std::string(e.what()) + " (this is the default" + origin + "; set " + at + ")");
    }
  };
  if (!rule || rule->kind == DefaultRule::Kind::Required) {
    if (rule && rule->when) {
      throw ScenarioError(at + ": required when " + condition_text_at(*rule->when, sc.section, sc.at_prefix) +
                          inherited_note(k, rel, out));
    }
    throw ScenarioError(at + ": required key is missing" + inherited_note(k, rel, out));
  }
  switch (rule->kind) {
    case DefaultRule::Kind::Value: return checked(rule->value, "");
    case DefaultRule::Kind::Null: return nullptr;
    case DefaultRule::Kind::FileStem:
      return checked(sc.ctx.file_stem.empty() ? std::string("scenario") : sc.ctx.file_stem,
                     ", the scenario file's name");
    case DefaultRule::Kind::SameAs: {
      const json* v = get_dotted(out, sibling_of(rel, rule->sibling));
      if (!v) throw ScenarioError(at + ": internal error: default refers to unresolved key " + rule->sibling);
      return checked(*v, ", " + sc.at_prefix + sibling_of(rel, rule->sibling));
    }
    case DefaultRule::Kind::RequiredUnless: {
      const std::string other = sibling_of(rel, rule->sibling);
      const json* v = get_dotted(out, other);
      if (v && !v->is_null()) return nullptr;
      throw ScenarioError(at + ": required unless " + sc.at_prefix + other + " is set" + inherited_note(k, rel, out));
    }
    case DefaultRule::Kind::Required: break;
  }
  return nullptr;
}

void resolve_scope(const json& src, const std::string& section, const std::string& at_prefix, json& out,
                   const json& top, const json& raw_top, const ResolveContext& ctx);

json resolve_entries(const KeySpec& k, const json& v, const std::string& at, const json& top, const json& raw_top,
                     const ResolveContext& ctx) {
  if (!v.is_array()) {
    throw ScenarioError(at + ": expected a list (each entry " + k.entry_doc + ")" +
                        (k.host_selector ? " or a selector object such as {\"hosts\": \"pi-*\"}" : "") + ", got " +
                        text::show(v));
  }
  if (v.empty() && !k.may_be_empty) throw ScenarioError(at + ": must not be empty");
  json entries = json::array();
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string entry_at = at + "[" + std::to_string(i) + "]";
    json src;
    if (v[i].is_string() && !k.shorthand.empty()) {
      src = json{{k.shorthand, v[i]}};
    } else if (v[i].is_object()) {
      src = v[i];
    } else {
      throw ScenarioError(entry_at + ": expected " + k.entry_doc + ", got " + text::show(v[i]));
    }
    json entry = json::object();
    resolve_scope(src, k.path + "[]", entry_at + ".", entry, top, raw_top, ctx);
    entries.push_back(std::move(entry));
  }
  return entries;
}

// Copies `over` onto `base` key by key, descending into sections of the schema (so a device's
// {"buffer": {"policy": ...}} keeps the inherited buffer capacity) but not into values (a rate
// object replaces the inherited rate as a whole). `path` is the schema path of `base`.
void merge_over(json& base, const json& over, const std::string& path) {
  for (const auto& [key, value] : over.items()) {
    const std::string full = path + "." + key;
    const KeySpec* k = find_key(full);
    const bool section = (!k || k->type == ValueType::Section) && is_section(full);
    if (section && value.is_object() && base.contains(key) && base[key].is_object()) {
      merge_over(base[key], value, full);
    } else {
      base[key] = value;
    }
  }
}

// An inheriting section (k.inherits, e.g. "devices[].stream" from "stream"): whether it is on
// for this entry and, if so, its raw keys (the global raw keys with the entry's own over them).
std::optional<json> inherited_section(const KeySpec& k, const json* own, const Scope& sc) {
  const json* global = get_dotted(sc.top, k.inherits);
  const bool global_on = global && global->is_object();
  if (own && own->is_null()) return std::nullopt;  // the entry opts out; else `own` is an object (check_keys)
  if (!own && !global_on) return std::nullopt;
  json merged = json::object();
  if (global_on) {
    const json* raw = get_dotted(sc.raw_top, k.inherits);
    if (raw && raw->is_object()) merged = *raw;
  }
  if (own) {
    // A key that takes precedence over a sibling is not inherited when the entry gives that
    // sibling itself: the entry's own rate beats an inherited trace.
    for (const auto& r : schema_keys()) {
      if (r.overrides.empty() || r.path.rfind(k.path + ".", 0) != 0) continue;
      const std::string rel = r.path.substr(k.path.size() + 1);
      const json* sibling = get_dotted(*own, sibling_of(rel, r.overrides));
      if (sibling && !sibling->is_null() && !get_dotted(*own, rel)) erase_dotted(merged, rel);
    }
    merge_over(merged, *own, k.path);
  }
  return merged;
}

bool under_any(const std::string& rel, const std::vector<std::string>& sections) {
  for (const auto& s : sections) {
    if (rel.size() > s.size() && rel.compare(0, s.size(), s) == 0 && rel[s.size()] == '.') return true;
  }
  return false;
}

// Resolves the keys directly in `section` ("" = the document, "devices[]" = one entry), with
// their nested sections, from `src_in` into `out`. `top` is the resolved document so far,
// `raw_top` the document as given (after overrides).
void resolve_scope(const json& src_in, const std::string& section, const std::string& at_prefix, json& out,
                   const json& top, const json& raw_top, const ResolveContext& ctx) {
  const Scope sc{section, at_prefix, top, raw_top, ctx};
  const std::string prefix = section.empty() ? "" : section + ".";
  json src = src_in;             // inherited sections get their merged keys here
  std::vector<std::string> off;  // optional sections that are off here: their keys are not resolved
  for (const auto& k : schema_keys()) {
    if (k.path.compare(0, prefix.size(), prefix) != 0 || k.part_of_value) continue;
    const std::string rel = k.path.substr(prefix.size());
    if (rel.find("[]") != std::string::npos) continue;  // belongs to a list's entries
    const std::string at = at_prefix + rel;
    const json* raw = get_dotted(src, rel);
    const bool section_on = !under_any(rel, off);
    const bool applies = section_on && (!k.applies_when || holds(*k.applies_when, top, section, out));
    if (!applies && k.error_unless_applies && raw && !raw->is_null() && section_on) {
      not_allowed(k, at, section, at_prefix, top, out);
    }
    if (k.type == ValueType::Section) {
      std::optional<json> on;
      if (applies && !k.inherits.empty()) {
        on = inherited_section(k, raw, sc);
        if (on) set_dotted(src, rel, *on);
      } else if (applies && raw && !raw->is_null()) {
        on = *raw;  // an object: pass 1 (check_keys) rejected anything else
      }
      if (!on) {
        off.push_back(rel);
        if (applies) set_dotted(out, rel, nullptr);
      } else {
        set_dotted(out, rel, json::object());
      }
      continue;
    }
    if (!applies) {
      // Not used in this scenario (e.g. dataset.shape for files): still catch garbage, but keep
      // it out of the resolved document. Lenient so that sweeps can flip the deciding key.
      if (raw && !raw->is_null() && k.type != ValueType::EntryList) check_value(k, *raw, at, ctx, false);
      continue;
    }
    if (raw && raw->is_null() && k.nullable) raw = nullptr;  // null = not given: the default
    json value;
    if (k.resolve) {
      value = k.resolve(raw, at, top, ctx);  // null `raw`: not given (e.g. the sites derived from the platform)
    } else if (raw && k.type == ValueType::Platform) {
      const json* hosts = get_dotted(top, "population.hosts");
      value = ctx.platform->resolve(*raw, at, ctx, top.at("seed").get<uint64_t>(), hosts && *hosts == "slots");
    } else if (raw && k.type == ValueType::EntryList && k.host_selector && ctx.platform->slots()) {
      // A population's devices are the fleet's records (PlatformSource::fill), not hosts to select.
      value = json::array();
      ctx.platform->set_selector(select_population(*raw, at, ctx.platform->population_size()));
    } else if (raw && k.type == ValueType::EntryList && k.host_selector && raw->is_object()) {
      // Devices named by a selector: one entry per matched host, resolved like a written list.
      const SelectedHosts selected =
          select_hosts(*raw, at, ctx.platform->info(), top.at("server").get<std::string>(), ctx.platform->file());
      value = resolve_entries(k, json(selected.hosts), at, top, raw_top, ctx);
      ctx.platform->set_selector(selected.resolved);
    } else if (raw && k.type == ValueType::EntryList) {
      value = resolve_entries(k, *raw, at, top, raw_top, ctx);
    } else if (raw) {
      value = check_value(k, *raw, at, ctx, must_exist(k, sc, out));
    } else {
      value = default_value(k, at, rel, out, sc);
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
    const KeySpec* k = find_key(full);
    if (k && k->type != ValueType::Section) {
      if (k->type == ValueType::EntryList && value.is_array()) {
        for (size_t i = 0; i < value.size(); ++i) {
          if (value[i].is_object()) check_keys(value[i], full + "[]", at_key + "[" + std::to_string(i) + "]");
        }
      }
    } else if (is_section(full)) {
      // One rule for every section ("training", "topology", "stream.buffer", "compression"...): null
      // means what leaving it out means (its defaults; off for an optional one; for a device's own
      // stream, off for that device), so a sweep or a generated file may write null for "not set".
      if (value.is_null()) continue;
      if (!value.is_object()) {
        throw ScenarioError(at_key + ": expected an object (with keys " + text::join(child_names(full), ", ") +
                            ") or null, got " + text::show(value));
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
      check_name(k.name_rule, v.get_ref<const std::string&>(), at);
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
        throw ScenarioError(at + ": must be " + range_text(k) + ", got " + text::show(v));
      }
      check_clock(k, d, v, at);
      check_limit(k, d, v, at);
      if (k.whole) {
        if (d != std::floor(d) || !(std::fabs(d) < 9e15)) {
          throw ScenarioError(at + ": must be a whole number of " + std::string(unit_symbol(k.unit)) + ", got " +
                              text::show(v));
        }
        return static_cast<int64_t>(d);
      }
      return d;
    }
    case ValueType::IntList: {
      const std::string what =
          "a list of " + (k.list_size ? std::to_string(*k.list_size) + " " : std::string()) + "integers";
      if (!v.is_array()) throw ScenarioError(at + ": expected " + what + ", got " + text::show(v));
      if (k.max_entries && v.size() > *k.max_entries) {
        throw ScenarioError(at + ": at most " + std::to_string(*k.max_entries) + " entries (" + k.max_entries_why +
                            "), got " + std::to_string(v.size()));
      }
      if (k.list_size && v.size() != *k.list_size) {
        throw ScenarioError(at + ": must have " + std::to_string(*k.list_size) + " entries, got " +
                            std::to_string(v.size()) + " (" + text::show(v) + ")");
      }
      json out = json::array();
      for (size_t i = 0; i < v.size(); ++i) out.push_back(check_integer(k, v[i], at + "[" + std::to_string(i) + "]"));
      return out;
    }
    case ValueType::Path: return check_path(k, v, at, ctx, check_exists);
    case ValueType::Rate: return check_rate(v, at);
    case ValueType::IntervalList: return check_intervals(v, at);
    case ValueType::Literal: {
      for (const auto& l : k.literals) {
        if (v == l) return l;  // json compares numbers by value: 32.0 is 32
      }
      std::string msg = at + ": must be " + literals_text(k) + ", got " + text::show(v);
      if (v.is_string()) {
        std::vector<std::string> strings;
        for (const auto& l : k.literals) {
          if (l.is_string()) strings.push_back(l.get<std::string>());
        }
        if (auto near = text::closest(v.get_ref<const std::string&>(), strings)) {
          msg += " (did you mean \"" + *near + "\"?)";
        }
      }
      throw ScenarioError(msg);
    }
    case ValueType::EntryList: break;  // resolved by resolve_entries
    case ValueType::Platform: break;   // resolved by PlatformSource
    case ValueType::SiteMap: break;    // resolved by the row's `resolve`
    case ValueType::Object:
      if (!v.is_object()) throw ScenarioError(at + ": expected an object, got " + text::show(v));
      return v;
    case ValueType::Section: break;    // resolved by resolve_scope
  }
  throw ScenarioError(at + ": internal error: no checker for this key type");
}

void check_rate_key(const std::string& at_rate, const std::string& key) {
  const auto& keys = rate_keys();
  if (std::find(keys.begin(), keys.end(), key) != keys.end()) return;
  std::string msg = at_rate + "." + key + ": unknown key";
  if (auto near = text::closest(key, keys)) throw ScenarioError(msg + " (did you mean \"" + *near + "\"?)");
  throw ScenarioError(msg + " (expected one of: " + text::join(keys, ", ") + ")");
}

std::string unknown_key_message(std::string_view section, const std::string& at_parent, const std::string& key) {
  // Inside a list entry the path ends with "]": name the key in quotes after it.
  const bool in_entry = !at_parent.empty() && at_parent.back() == ']';
  const std::string shown = key.size() > 60 ? text::show(key) : key;  // a huge key stays one short line
  std::string msg = in_entry ? at_parent + ": unknown key " + text::show(key)
                             : (at_parent.empty() ? shown : at_parent + "." + shown) + ": unknown key";
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
  resolve_scope(doc, "", "", out, out, doc, ctx);
  for (const auto& rule : schema_rules()) rule.check(out);
  return out;
}

}  // namespace edgetrain::scenario
