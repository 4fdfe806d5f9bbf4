// See schema_default.hpp.
#include "scenario/schema_default.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

#include "scenario/schema.hpp"

namespace edgetrain::scenario {
namespace {

using nlohmann::json;

bool is_index(const std::string& token) {
  return !token.empty() && std::all_of(token.begin(), token.end(), [](unsigned char c) { return std::isdigit(c); });
}

std::vector<std::string> tokens_of(const std::string& dotted) {
  std::vector<std::string> out;
  std::string token;
  std::istringstream in(dotted);
  while (std::getline(in, token, '.')) out.push_back(token);
  return out;
}

// `devices.3.stream.rate` as the schema spells it (`devices[].stream.rate`), with the indices met.
std::string schema_path(const std::string& dotted, std::vector<std::string>& indices) {
  std::string out;
  for (const std::string& t : tokens_of(dotted)) {
    if (is_index(t)) {
      out += "[]";
      indices.push_back(t);
    } else {
      out += (out.empty() ? "" : ".") + t;
    }
  }
  return out;
}

// A schema path of the same entry (`devices[].stream.buffer.policy`) back as a dotted path of `indices`.
std::string dotted_path(const std::string& key, const std::vector<std::string>& indices) {
  std::string out;
  size_t next = 0;
  for (size_t at = 0; at < key.size();) {
    if (key.compare(at, 2, "[]") == 0) {
      out += "." + (next < indices.size() ? indices[next++] : std::string("0"));
      at += 2;
    } else {
      out += key[at++];
    }
  }
  return out;
}

const json* find_dotted(const json& document, const std::string& dotted) {
  const json* at = &document;
  for (const std::string& t : tokens_of(dotted)) {
    if (at->is_object()) {
      const auto it = at->find(t);
      if (it == at->end()) return nullptr;
      at = &*it;
    } else if (at->is_array() && is_index(t) && std::stoul(t) < at->size()) {
      at = &(*at)[std::stoul(t)];
    } else {
      return nullptr;
    }
  }
  return at;
}

bool holds(const Condition& c, const json& resolved, const std::vector<std::string>& indices) {
  const json* v = find_dotted(resolved, dotted_path(c.key, indices));
  if (!v || !v->is_string()) return false;
  const bool listed = std::find(c.values.begin(), c.values.end(), v->get<std::string>()) != c.values.end();
  return listed != c.negated;
}

}  // namespace

std::optional<json> schema_default(const std::string& path, const json& resolved) {
  std::vector<std::string> indices;
  const KeySpec* key = find_key(schema_path(path, indices));
  if (!key || key->part_of_value) return std::nullopt;
  if (!key->inherits.empty()) {  // a per-device override: the global key's value
    const json* global = find_dotted(resolved, key->inherits);
    return global ? std::optional<json>(*global) : schema_default(key->inherits, resolved);
  }
  for (const DefaultRule& rule : key->defaults) {
    if (rule.when && !holds(*rule.when, resolved, indices)) continue;
    switch (rule.kind) {
      case DefaultRule::Kind::Value: return rule.value;
      case DefaultRule::Kind::Null: return json(nullptr);
      case DefaultRule::Kind::SameAs: {
        const size_t dot = path.rfind('.');
        const json* v = find_dotted(resolved, (dot == std::string::npos ? "" : path.substr(0, dot + 1)) + rule.sibling);
        return v ? std::optional<json>(*v) : std::nullopt;
      }
      default: return std::nullopt;  // required, or the scenario file's name: no value to compare with
    }
  }
  return std::nullopt;
}

bool null_is_off(const std::string& path) {
  std::vector<std::string> indices;
  const KeySpec* key = find_key(schema_path(path, indices));
  return key && key->null_is_off;
}

}  // namespace edgetrain::scenario
