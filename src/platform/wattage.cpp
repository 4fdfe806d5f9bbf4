// See wattage.hpp. SimGrid parses each watt figure with strtod and refuses trailing text
// (xbt_str_parse_double) for wattage_per_state, but takes any leading number for wattage_off and
// wattage_range (std::stod): here every figure must be a whole plain number, so that what SimGrid
// reads is what the file says.
#include "platform/wattage.hpp"

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <vector>

#include "platform/bounds.hpp"

namespace edgetrain::platform {
namespace {

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::vector<std::string_view> split(std::string_view text, char by) {
  std::vector<std::string_view> out;
  size_t from = 0;
  while (true) {
    const size_t at = text.find(by, from);
    out.push_back(text.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
    if (at == std::string_view::npos) return out;
    from = at + 1;
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A decimal number of watts ("6", "0.45", "1e2"): digits, an optional fraction and exponent.
std::optional<double> watts(std::string_view text) {
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.')) {
    return std::nullopt;  // no sign, no "inf", "nan" or hexadecimal
  }
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+')
      return std::nullopt;
  }
  const std::string s(text);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v) || v > kMaxWatts) return std::nullopt;
  return v;
}

// "a:b[:c]" with `min`..`max` numbers of watts, each >= 0, the last >= the one before it (power
// does not fall as load grows). The figures, or a problem.
std::string figures(std::string_view entry, size_t min, size_t max, const char* form, std::vector<double>& out) {
  const std::vector<std::string_view> parts = split(entry, ':');
  if (parts.size() < min || parts.size() > max)
    return std::string("must be ") + form + " (watts), got " + quoted(entry);
  out.clear();
  for (std::string_view p : parts) {
    const std::optional<double> w = watts(p);
    if (!w) return std::string("must be ") + form + " with numbers of watts from 0 to 1e6, got " + quoted(entry);
    out.push_back(*w);
  }
  if (out.back() < out[out.size() - 2]) {
    return std::string("must be ") + form + " with the full-load figure not below the one before it, got " +
           quoted(entry);
  }
  return "";
}

const std::string* find(const std::map<std::string, std::string>& properties, const char* key) {
  const auto it = properties.find(key);
  return it == properties.end() ? nullptr : &it->second;
}

}  // namespace

std::string host_wattage_problem(const std::map<std::string, std::string>& properties, size_t pstates) {
  const std::string* per_state = find(properties, kHostWattage);
  if (const std::string* off = find(properties, kHostWattageOff)) {
    if (!watts(trim(*off)))
      return std::string(kHostWattageOff) + " must be a number of watts from 0 to 1e6, got " + quoted(*off);
    if (!per_state) {
      return std::string(kHostWattageOff) + " is set without " + kHostWattage +
             ", so SimGrid would give this host no energy figures";
    }
  }
  if (!per_state) return "";
  const std::vector<std::string_view> entries = split(*per_state, ',');
  if (entries.size() != pstates) {
    return std::string(kHostWattage) + " must give one \"idle:epsilon:all_cores\" entry per pstate: the host has " +
           std::to_string(pstates) + " speed(s), got " + std::to_string(entries.size()) + " entries in " +
           quoted(*per_state);
  }
  std::vector<double> w;
  for (size_t i = 0; i < entries.size(); ++i) {
    // SimGrid skips spaces before a figure but not after one; both are accepted here only before.
    std::string_view e = entries[i];
    while (!e.empty() && (e.front() == ' ' || e.front() == '\t')) e.remove_prefix(1);
    const std::string problem = figures(e, 2, 3, "\"idle:all_cores\" or \"idle:epsilon:all_cores\"", w);
    if (!problem.empty()) {
      return std::string(kHostWattage) + (entries.size() > 1 ? " entry " + std::to_string(i) : std::string()) + " " +
             problem;
    }
  }
  return "";
}

std::string link_wattage_problem(const std::map<std::string, std::string>& properties, bool wifi) {
  if (find(properties, "watt_range")) {
    return "the property watt_range was renamed " + std::string(kLinkWattage) + " in SimGrid";
  }
  if (find(properties, kHostWattageOff)) {
    return std::string(kHostWattageOff) +
           " is not read on links by SimGrid 3.32's link energy plugin (a link that is off draws its idle watts): "
           "remove it";
  }
  const std::string* range = find(properties, kLinkWattage);
  if (!range) return "";
  if (wifi) {
    return std::string(kLinkWattage) +
           " on a WIFI link is not supported: SimGrid 3.32's link energy plugin skips Wi-Fi links";
  }
  std::vector<double> w;
  const std::string problem = figures(trim(*range), 2, 2, "\"idle:busy\"", w);
  return problem.empty() ? "" : std::string(kLinkWattage) + " " + problem;
}

}  // namespace edgetrain::platform
