// Reading scenarios: file and JSON syntax errors, --set overrides, then validation (validate.cpp)
// and the typed Scenario (fill.cpp). The human summary is describe.cpp.
#include "scenario/load.hpp"

#include <system_error>

#include "input/json_text.hpp"
#include "input/text.hpp"
#include "scenario/fill.hpp"
#include "scenario/keys/compression.hpp"
#include "scenario/schema.hpp"
#include "scenario/validate.hpp"
#include "util/read_input.hpp"
#include "util/stop_flag.hpp"

namespace edgetrain::scenario {

namespace text = input::text;
using input::TextPosition;
using input::find_json_text_issue;
using input::issue_text;
using input::check_json_depth;
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

bool all_digits(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

// nlohmann reports a byte offset (1-based, of the last character read); people want line:column.
std::pair<size_t, size_t> line_column(const std::string& content, size_t byte) {
  const size_t pos = std::min(byte == 0 ? 0 : byte - 1, content.size());
  size_t line = 1, line_start = 0;
  for (size_t i = 0; i < pos; ++i) {
    if (content[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, pos - line_start + 1};
}

// nlohmann's message without its "[json.exception...] parse error at line L, column C: " prefix.
std::string parse_error_detail(const std::string& what) {
  size_t from = what.find("column ");
  if (from == std::string::npos) from = what.find("] ");
  if (from == std::string::npos) return what;
  const size_t colon = what.find(": ", from);
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

[[noreturn]] void fail_override(const std::string& shown, const std::string& why) {
  throw ScenarioError(shown + ": " + why);
}

}  // namespace

void apply_override(json& doc, const std::string& override_text) {
  // A huge override must not make a huge message.
  constexpr size_t kShown = 80;
  const std::string shown =
      "--set " + (override_text.size() > kShown ? override_text.substr(0, kShown - 3) + "..." : override_text);
  const size_t eq = override_text.find('=');
  if (eq == std::string::npos || eq == 0) fail_override(shown, "expected key.path=value (for example training.lr=0.1)");
  const std::string key = override_text.substr(0, eq);
  const std::string value_text = override_text.substr(eq + 1);
  const std::vector<std::string> segments = text::split(key, '.');
  for (const auto& seg : segments) {
    if (seg.empty()) fail_override(shown, "empty name in key path \"" + key + "\"");
  }

  // Walk the schema and the document together, creating what is missing on the way.
  std::string section;                // schema section the walk is in ("" = top level)
  std::string at;                     // JSON path so far, for messages
  const KeySpec* leaf = nullptr;      // the declared key reached, if any
  const KeySpec* entry_of = nullptr;  // set while the node is an entry of this EntryList
  bool element = false;               // the node is an element of an IntList
  bool free_form = false;             // inside the platform's object form: any keys
  json* node = &doc;
  std::string typed;  // the key path as typed, up to the current segment ("faults.devices.0")
  for (const auto& seg : segments) {
    const std::string typed_at = typed;
    typed += (typed.empty() ? "" : ".") + seg;
    if (leaf && (leaf->type == ValueType::Platform || leaf->type == ValueType::Object || free_form)) {
      // Into the platform's object form: what-ifs and fleet keys are checked against the platform
      // itself when the document is resolved. A plain path becomes {"file": path}.
      if (!free_form && node->is_string()) *node = json{{"file", *node}};
      if (node->is_array() && all_digits(seg)) {
        const size_t index = seg.size() > 9 ? node->size() + 1 : std::stoul(seg);
        if (index > node->size())
          fail_override(
              shown, "index " + seg + " is out of range (" + at + " has " + std::to_string(node->size()) + " entries)");
        if (index == node->size()) node->push_back(nullptr);
        node = &(*node)[index];
        at += "[" + seg + "]";
      } else {
        if (node->is_null()) *node = json::object();
        if (!node->is_object()) fail_override(shown, at + " is " + text::show(*node) + ", not an object");
        node = &(*node)[seg];
        at += "." + seg;
      }
      free_form = true;
      continue;
    }
    if (all_digits(seg)) {
      if (leaf && element && leaf->type == ValueType::Rate) {
        fail_override(shown, "set " + at + " as a whole, e.g. " + at + "=[10, 20]");
      }
      if (leaf && leaf->type == ValueType::IntervalList) {
        fail_override(shown, "set " + typed_at + " as a whole, e.g. " + typed_at + "=[[60, 120], [300, 330]]");
      }
      const bool list = leaf && !element && (leaf->type == ValueType::IntList || leaf->type == ValueType::EntryList);
      if (!list) fail_override(shown, at.empty() ? "a key path cannot start with a list index" : at + " is not a list");
      if (seg.size() > 9) fail_override(shown, "index " + seg + " is out of range");
      const size_t index = std::stoul(seg);
      if (node->is_null()) *node = json::array();
      if (!node->is_array()) fail_override(shown, at + " is " + text::show(*node) + ", not a list");
      if (index > node->size()) {
        fail_override(shown, "index " + seg + " is out of range (" + at + " has " + std::to_string(node->size()) +
                                 " entries; index " + std::to_string(node->size()) + " appends)");
      }
      if (index == node->size()) node->push_back(nullptr);
      node = &(*node)[index];
      at += "[" + seg + "]";
      if (leaf->type == ValueType::IntList) {
        element = true;
      } else {
        entry_of = leaf;
        section = leaf->path + "[]";
        leaf = nullptr;
      }
      continue;
    }
    if (leaf && !element && leaf->type == ValueType::EntryList && leaf->host_selector && !all_digits(seg) &&
        !node->is_array()) {
      // A device selector's field: --set devices.class=pi4.
      if (!node->is_object()) *node = json::object();
      node = &(*node)[seg];
      at += "." + seg;
      element = true;
      continue;
    }
    if (leaf && !element && leaf->type == ValueType::Rate) {
      // Into a rate object: --set stream.rate.mean=40.
      check_rate_key(at, seg);
      if (node->is_null()) *node = json::object();
      if (!node->is_object()) fail_override(shown, at + " is " + text::show(*node) + ", not an object");
      node = &(*node)[seg];
      at += "." + seg;
      element = true;
      continue;
    }
    if (leaf || element) {
      const std::string where = at + "." + seg;
      if (leaf && leaf->type == ValueType::EntryList) {
        throw ScenarioError(where + ": unknown key (" + at + " is a list: index it, e.g. " + at + ".0." + seg + ")");
      }
      if (leaf && leaf->type == ValueType::IntervalList) {
        throw ScenarioError(where + ": unknown key (" + at + " is a list of intervals: set it as a whole, e.g. " +
                            typed_at + "=[[60, 120]])");
      }
      if (leaf && !element && leaf->type == ValueType::IntList) {
        throw ScenarioError(where + ": unknown key (" + at + " is a list: index it, e.g. " + at + ".0)");
      }
      throw ScenarioError(where + ": unknown key (" + at + " is a single value, with no keys inside)");
    }
    const std::string full = section.empty() ? seg : section + "." + seg;
    const KeySpec* k = find_key(full);
    if (!k && !is_section(full)) throw ScenarioError(unknown_key_message(section, at, seg));
    // A device written as "pi-1" becomes {"host": "pi-1"} before one of its keys is set.
    if (entry_of && !entry_of->shorthand.empty() && node->is_string()) *node = json{{entry_of->shorthand, *node}};
    if (node->is_null()) *node = json::object();
    if (!node->is_object())
      fail_override(shown,
                    (at.empty() ? std::string("the scenario") : at) + " is " + text::show(*node) + ", not an object");
    node = &(*node)[seg];
    at = at.empty() ? seg : at + "." + seg;
    if (k && k->type != ValueType::Section)
      leaf = k;
    else
      section = full;
    entry_of = nullptr;
  }

  // The value: JSON if it parses, else the plain text; keys that hold text always get the text,
  // so --set name=2024 names the run "2024" instead of failing on a number.
  json value;
  bool is_json = true;
  if (const auto issue = find_json_text_issue(value_text, /*comments=*/false)) {
    // Depth and duplicate keys are refused, not read as a plain string: the value was meant as JSON.
    fail_override(shown, issue_text(*issue, [](const TextPosition& p) {
                    return "column " + std::to_string(p.column) + " of the value";
                  }));
  }
  try {
    value = json::parse(value_text);
  } catch (const json::exception&) {
    is_json = false;
  }
  const bool text_key =
      leaf && !element &&
      (leaf->type == ValueType::String || leaf->type == ValueType::Enum || leaf->type == ValueType::Path);
  const bool whole_entry = entry_of != nullptr;                    // e.g. devices.0=pi-3
  const bool null_ok = value.is_null() && leaf && leaf->nullable;  // --set stream.trace=null
  // A text key resolved by code of its own may also take an object (attack.devices: a glob or a selector).
  const bool object_ok = value.is_object() && leaf && leaf->resolve;
  if (!is_json || (text_key && !value.is_string() && !null_ok && !object_ok) ||
      (whole_entry && !value.is_string() && !value.is_object())) {
    value = value_text;
    try {
      (void)value.dump();
    } catch (const json::exception&) {
      fail_override(shown, "the value is not valid UTF-8");
    }
  }
  *node = std::move(value);
}

Scenario parse_scenario(json doc, const fs::path& file_for_relative_paths,
                        const std::vector<std::string>& set_overrides, std::optional<uint64_t> seed_override) {
  try {
    ResolveContext ctx;
    fs::path file_abs;
    if (file_for_relative_paths.empty()) {
      ctx.base_dir = fs::current_path();
    } else {
      file_abs = fs::absolute(file_for_relative_paths).lexically_normal();
      ctx.base_dir = file_abs.parent_path();
      ctx.file_stem = file_abs.stem().string();
    }
    if (!doc.is_object()) {
      throw ScenarioError("scenario: expected a JSON object at the top level, got " + text::show(doc));
    }
    check_json_depth(doc, "scenario");
    for (const auto& o : set_overrides) apply_override(doc, o);
    check_json_depth(doc, "scenario (after --set)");
    if (seed_override) doc["seed"] = *seed_override;
    keys::expand_compressor_aliases(doc);
    Scenario s = typed_scenario(resolve_document(doc, ctx));
    ctx.platform->fill(s);
    s.file = file_abs;
    return s;
  } catch (const ScenarioError&) {
    throw;
  } catch (const util::Interrupted&) {  // a signal while generating a fleet: not an error
    throw;
  } catch (const std::exception& e) {
    // A bug or an environment failure (e.g. the current directory vanished): still one line.
    throw ScenarioError("scenario: internal error while reading the scenario: " + std::string(e.what()));
  }
}

uint64_t parse_seed_option(const std::string& text, const std::string& option) {
  json value;
  try {
    value = json::parse(text);
  } catch (const json::exception&) {
    value = text;  // not a number: the check below says so
  }
  const KeySpec* seed = find_key("seed");
  if (!seed) throw ScenarioError(option + ": internal error: the schema has no seed key");
  return check_value(*seed, value, option, ResolveContext{}).get<uint64_t>();
}

Scenario load_scenario(const fs::path& file, const std::vector<std::string>& set_overrides,
                       std::optional<uint64_t> seed_override) {
  // "-": the document comes on standard input and stands for no file (parse_scenario's empty path).
  const bool piped = file == kStandardInput;
  const std::string shown = piped ? "standard input" : file.string();
  std::string content = util::read_input_as<ScenarioError>(piped ? fs::path("/dev/stdin") : file, util::kScenarioInput);
  if (const auto issue = find_json_text_issue(content, /*comments=*/true)) {
    throw ScenarioError(issue_text(*issue, [&](const TextPosition& p) {
      return shown + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
    }));
  }
  json doc;
  try {
    doc = json::parse(content, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    const auto [line, column] = line_column(content, e.byte);
    throw ScenarioError(shown + ":" + std::to_string(line) + ":" + std::to_string(column) +
                        ": malformed JSON: " + parse_error_detail(e.what()));
  } catch (const json::exception& e) {
    throw ScenarioError(shown + ": malformed JSON: " + std::string(e.what()));
  }
  return parse_scenario(std::move(doc), piped ? fs::path() : file, set_overrides, seed_override);
}


}  // namespace edgetrain::scenario
