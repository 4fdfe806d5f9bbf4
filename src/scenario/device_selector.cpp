// See device_selector.hpp.
#include "scenario/device_selector.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "scenario/error.hpp"
#include "input/text.hpp"

namespace edgetrain::scenario {

namespace text = input::text;
namespace {

using nlohmann::json;

const std::vector<std::string> kFields = {"hosts", "class", "site", "role", "exclude"};
const std::vector<std::string> kPropertyFields = {"class", "site", "role"};

// A field's globs: a string, or a non-empty list of strings.
std::vector<std::string> globs(const json& v, const std::string& at) {
  const std::string expected = "expected a glob (a string such as \"pi-*\") or a list of globs";
  std::vector<std::string> out;
  if (v.is_string()) {
    out.push_back(v.get<std::string>());
  } else if (v.is_array() && !v.empty()) {
    for (size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) {
        throw ScenarioError(at + "[" + std::to_string(i) + "]: " + expected + ", got " + text::show(v[i]));
      }
      out.push_back(v[i].get<std::string>());
    }
  } else {
    throw ScenarioError(at + ": " + expected + ", got " + text::show(v));
  }
  for (const auto& g : out) {
    if (g.empty()) throw ScenarioError(at + ": a glob must not be empty");
  }
  return out;
}

bool matches(const std::vector<std::string>& patterns, const std::string& s) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return fnmatch(p.c_str(), s.c_str(), 0) == 0; });
}

const std::string* property(const platform::HostPlace& place, const std::string& key) {
  const auto it = place.properties.find(key);
  return it == place.properties.end() ? nullptr : &it->second;
}

// Why a field matched nothing: the values the platform has for it, and the nearest one.
std::string hint(const std::string& field, const std::vector<std::string>& patterns,
                 const platform::PlatformInfo& info) {
  if (field == "hosts" || field == "exclude") {
    for (const std::string& h : info.host_order) {
      if (matches(patterns, h)) return " but the server and aggregators, which are selected only by role";
    }
    if (auto near = text::closest(patterns.front(), info.host_order)) return " (did you mean \"" + *near + "\"?)";
    return "";
  }
  std::set<std::string> values;
  for (const auto& [name, place] : info.hosts) {
    if (const std::string* v = property(place, field)) values.insert(*v);
  }
  if (values.empty()) {
    return " (no host of the platform has a " + field +
           " property; the fleet generator writes class, site and role on every host)";
  }
  const std::vector<std::string> list(values.begin(), values.end());
  if (auto near = text::closest(patterns.front(), list)) return " (did you mean \"" + *near + "\"?)";
  constexpr size_t kShown = 8;
  std::vector<std::string> shown(list.begin(), list.begin() + std::min(list.size(), kShown));
  if (list.size() > kShown) shown.push_back("...");
  return " (" + field + " values: " + text::join(shown, ", ") + ")";
}

}  // namespace

SelectedHosts select_hosts(const json& selector, const std::string& at, const platform::PlatformInfo& info,
                           const std::string& server, const std::filesystem::path& platform_file) {
  std::vector<std::pair<std::string, std::vector<std::string>>> fields;  // given fields, in kFields order
  std::optional<int64_t> matched;
  for (const auto& [key, value] : selector.items()) {
    if (key == "matched") continue;
    if (std::find(kFields.begin(), kFields.end(), key) != kFields.end()) continue;
    std::string msg = at + "." + key + ": unknown selector key";
    std::vector<std::string> all = kFields;
    all.push_back("matched");
    if (auto near = text::closest(key, all)) throw ScenarioError(msg + " (did you mean \"" + *near + "\"?)");
    throw ScenarioError(msg + " (expected some of: " + text::join(all, ", ") +
                        "; per-device settings such as stream need a list of devices)");
  }
  for (const auto& f : kFields) {
    if (selector.contains(f) && !selector.at(f).is_null()) fields.emplace_back(f, globs(selector.at(f), at + "." + f));
  }
  if (selector.contains("matched") && !selector.at("matched").is_null()) {
    const json& m = selector.at("matched");
    if (!m.is_number_integer() || m.get<int64_t>() < 1) {
      throw ScenarioError(at + ".matched: expected a positive integer (how many hosts the selector matches), got " +
                          text::show(m));
    }
    matched = m.get<int64_t>();
  }
  const bool names_a_selection =
      std::any_of(fields.begin(), fields.end(), [](const auto& f) { return f.first != "exclude"; });
  if (!names_a_selection) {
    throw ScenarioError(at +
                        ": a selector needs at least one of hosts, class, site and role (e.g. {\"hosts\": \"*\"})");
  }
  const bool role_given = std::any_of(fields.begin(), fields.end(), [](const auto& f) { return f.first == "role"; });

  SelectedHosts out;
  std::map<std::string, size_t> alone;  // hosts each field matches on its own (for the message)
  for (const std::string& host : info.host_order) {
    if (host == server) continue;
    const platform::HostPlace& place = info.hosts.at(host);
    const std::string* role = property(place, "role");
    if (!role_given && role && *role != "device") continue;  // an aggregator
    bool all = true;
    for (const auto& [field, patterns] : fields) {
      bool ok;
      if (field == "hosts") {
        ok = matches(patterns, host);
      } else if (field == "exclude") {
        ok = !matches(patterns, host);
      } else {
        const std::string* v = property(place, field);
        ok = v && matches(patterns, *v);
      }
      if (ok) ++alone[field];
      all = all && ok;
    }
    if (all) out.hosts.push_back(host);
  }
  if (out.hosts.empty()) {
    std::string why;
    for (const auto& [field, patterns] : fields) {
      if (alone[field] == 0) {
        why = "; " + field + " " + text::show(selector.at(field)) + " matches no host" + hint(field, patterns, info);
        break;
      }
    }
    if (why.empty()) why = " (each field matches some hosts, but no host matches them all)";
    throw ScenarioError(at + ": selector " + text::show(selector) + " matches no device host of platform " +
                        platform_file.filename().string() + " (the server and aggregators are never selected)" + why);
  }
  const auto count = static_cast<int64_t>(out.hosts.size());
  if (matched && *matched != count) {
    throw ScenarioError(at + ".matched: the selector matches " + std::to_string(count) + " hosts, not " +
                        std::to_string(*matched) + " (remove matched, or fix the selector or the platform)");
  }
  out.resolved = json::object();
  for (const auto& [field, patterns] : fields) out.resolved[field] = selector.at(field);
  out.resolved["matched"] = count;
  return out;
}

json select_population(const json& selector, const std::string& at, size_t population) {
  const std::string whole = "with population.hosts \"slots\" the devices are every device of the fleet: write "
                            "{\"role\": \"device\"} (choose who takes part in each round with training.selection)";
  if (!selector.is_object()) throw ScenarioError(at + ": " + whole);
  json resolved = json::object();
  for (const auto& [key, value] : selector.items()) {
    const bool all = (key == "role" && (value == "device" || value == "*")) || (key == "hosts" && value == "*");
    if (key == "matched" || value.is_null()) continue;
    if (!all) throw ScenarioError(at + "." + key + ": " + whole);
    resolved[key] = value;
  }
  if (resolved.empty()) throw ScenarioError(at + ": " + whole);
  const auto count = static_cast<int64_t>(population);
  if (selector.contains("matched") && selector.at("matched") != count) {
    throw ScenarioError(at + ".matched: the fleet has " + std::to_string(count) + " devices, not " +
                        text::show(selector.at("matched")));
  }
  resolved["matched"] = count;
  return resolved;
}

}  // namespace edgetrain::scenario
