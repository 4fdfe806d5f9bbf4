// See python_class.hpp.
#include "scenario/keys/python_class.hpp"

#include <cctype>
#include <cmath>
#include <filesystem>

#include "input/text.hpp"
#include "scenario/error.hpp"
#include "scenario/fill.hpp"
#include "scenario/rows.hpp"
#include "scenario/validate.hpp"

namespace fs = std::filesystem;

namespace edgetrain::scenario::keys {
namespace text = input::text;
namespace {

constexpr size_t kMaxSettingsBytes = 1 << 20;  // a settings object is a handful of numbers, not data
constexpr int kMaxSettingsDepth = 16;

bool identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// The value at a dotted path of the document resolved so far (null when a part is missing).
const nlohmann::json* at_path(const nlohmann::json& doc, const std::string& path) {
  const nlohmann::json* node = &doc;
  for (const std::string& part : text::split(path, '.')) {
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &node->at(part);
  }
  return node;
}

nlohmann::json resolve_class(const nlohmann::json* raw, const std::string& at, const nlohmann::json& resolved,
                             const ResolveContext& ctx, const std::string& kind_key) {
  if (!raw || raw->is_null()) {
    const nlohmann::json* kind = at_path(resolved, kind_key);
    if (kind && *kind == "python") throw ScenarioError(at + ": required when " + kind_key + " is python (FILE.py:CLASS)");
    return nullptr;
  }
  const std::string form = "\"FILE.py:CLASS\", such as \"my_strategy.py:FedAvgTrimmed\"";
  if (!raw->is_string()) throw ScenarioError(at + ": expected " + form + ", got " + text::show(*raw));
  const std::string& given = raw->get_ref<const std::string&>();
  const size_t colon = given.rfind(':');
  if (colon == std::string::npos || colon == 0) throw ScenarioError(at + ": expected " + form + ", got " + text::show(*raw));
  const std::string name = given.substr(colon + 1);
  if (!identifier(name)) throw ScenarioError(at + ": " + text::show(name) + " is not a Python class name (expected " + form + ")");
  fs::path file(given.substr(0, colon));
  if (file.extension() != ".py") throw ScenarioError(at + ": " + text::show(file.string()) + " is not a .py file (expected " + form + ")");
  if (file.is_relative()) file = ctx.base_dir / file;
  file = file.lexically_normal();
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw ScenarioError(at + ": file not found: " + file.string());
  return file.string() + ":" + name;
}

void check_settings(const nlohmann::json& v, const std::string& at, int depth) {
  if (depth > kMaxSettingsDepth) throw ScenarioError(at + ": nested deeper than " + std::to_string(kMaxSettingsDepth) + " levels");
  if (v.is_number_float() && !std::isfinite(v.get<double>())) throw ScenarioError(at + ": must be finite");
  if (v.is_object()) {
    for (const auto& [key, value] : v.items()) check_settings(value, at + "." + key, depth + 1);
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) check_settings(v[i], at + "[" + std::to_string(i) + "]", depth + 1);
  }
}

nlohmann::json resolve_settings(const nlohmann::json* raw, const std::string& at, const nlohmann::json&,
                                const ResolveContext&) {
  if (!raw || raw->is_null()) return nlohmann::json::object();
  if (!raw->is_object())
    throw ScenarioError(at + ": expected an object of keyword arguments, such as {\"trim\": 0.1}, got " + text::show(*raw));
  for (const auto& [key, value] : raw->items()) {
    if (!identifier(key)) throw ScenarioError(at + ": " + text::show(key) + " is not a Python keyword argument name");
    check_settings(value, at + "." + key, 1);
  }
  if (raw->dump().size() > kMaxSettingsBytes) throw ScenarioError(at + ": larger than 1 MiB (settings, not data)");
  return *raw;
}

}  // namespace

KeySpec python_class_key(std::string path, std::string description, PythonClass* (*place)(Scenario&),
                         std::string kind_key) {
  KeySpec k = string_key(std::move(path), std::move(description))
                  .resolved_by([kind_key](const nlohmann::json* raw, const std::string& at,
                                                                 const nlohmann::json& resolved, const ResolveContext& ctx) {
                    return resolve_class(raw, at, resolved, ctx, kind_key);
                  });
  k.null_default("required when " + kind_key + " is python");
  k.type_doc = "string (FILE.py:CLASS)";
  return std::move(k.fills_root<Scenario>([place](Scenario& s, const nlohmann::json& v) {
    PythonClass* python = place(s);
    if (v.is_null() || !python) return;
    const std::string value = v.get<std::string>();
    const size_t colon = value.rfind(':');
    python->file = value.substr(0, colon);
    python->name = value.substr(colon + 1);
  }));
}

KeySpec python_settings_key(std::string path, std::string description, PythonClass* (*place)(Scenario&)) {
  KeySpec k = row(std::move(path), ValueType::Object, std::move(description)).resolved_by(resolve_settings);
  return std::move(k.def(nlohmann::json::object()).fills_root<Scenario>([place](Scenario& s, const nlohmann::json& v) {
    if (PythonClass* python = place(s)) python->settings = v;
  }));
}

}  // namespace edgetrain::scenario::keys
