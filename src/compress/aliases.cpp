// See aliases.hpp. The quantisers' bit widths follow qsgd's wire format (quantize.cpp): a level of
// s levels and its sign in bits_for(s + 1) + 1 bits, so 127 levels are 8 bits an entry.
#include "compress/aliases.hpp"

#include <charconv>
#include <cmath>

#include "compress/compressor.hpp"

namespace edgetrain::compress {

namespace {

struct Named {
  std::string name;
  Alias alias;
  std::string meaning;  // for the legend
};

const std::vector<Named>& fixed() {
  static const std::vector<Named> table = {
      {"fp32", {"none", {}}, "dense fp32"},
      {"int8", {"qsgd", {{"levels", 127}}}, "qsgd, levels 127 (8 bits an entry)"},
      {"int4", {"qsgd", {{"levels", 7}}}, "qsgd, levels 7 (4 bits an entry)"},
      {"int2", {"qsgd", {{"levels", 1}}}, "qsgd, levels 1 (2 bits an entry)"},
      {"ternary", {"terngrad", {}}, "terngrad"},
      {"sign", {"signsgd", {}}, "signsgd"},
      {"1bit", {"onebit", {}}, "onebit"},
  };
  return table;
}

// "P%" patterns of the kinds that keep a fraction of the entries; "rankR" of PowerSGD.
struct Pattern {
  std::string prefix, suffix, kind, setting;
  double scale;  // the setting is the number times this
  std::string meaning;
};

const std::vector<Pattern>& patterns() {
  static const std::vector<Pattern> table = {
      {"topk-", "%", "topk", "ratio", 0.01, "topk-P% = topk, ratio P/100"},
      {"randomk-", "%", "randomk", "ratio", 0.01, "randomk-P% = randomk, ratio P/100"},
      {"adacomp-", "%", "adacomp", "ratio", 0.01, "adacomp-P% = adacomp, ratio P/100"},
      {"powersgd-rank", "", "powersgd", "rank", 1, "powersgd-rankR = powersgd, rank R"},
  };
  return table;
}

// The number between a pattern's prefix and suffix, or nullopt when `name` is not of its shape.
std::optional<double> number_in(const std::string& name, const Pattern& p) {
  if (name.size() <= p.prefix.size() + p.suffix.size() || name.rfind(p.prefix, 0) != 0 ||
      name.compare(name.size() - p.suffix.size(), p.suffix.size(), p.suffix) != 0)
    return std::nullopt;
  const char* first = name.data() + p.prefix.size();
  const char* last = name.data() + name.size() - p.suffix.size();
  double value = 0;
  const auto [end, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || end != last || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace

std::optional<Alias> alias_named(const std::string& name) {
  for (const Named& n : fixed()) {
    if (n.name == name) return n.alias;
  }
  for (const Pattern& p : patterns()) {
    const std::optional<double> number = number_in(name, p);
    if (!number) continue;
    if (p.setting == "ratio" && !(*number > 0 && *number <= 100))
      throw ConfigError("kind", name + ": the percentage must be above 0 and at most 100");
    if (p.setting == "rank" && !(*number >= 1 && *number == std::floor(*number) && *number <= 4096))
      throw ConfigError("kind", name + ": the rank must be a whole number from 1 to 4096");
    return Alias{p.kind, {{p.setting, *number * p.scale}}};
  }
  return std::nullopt;
}

std::vector<std::string> alias_legend() {
  std::vector<std::string> legend;
  for (const Named& n : fixed()) legend.push_back(n.name + " = " + n.meaning);
  for (const Pattern& p : patterns()) legend.push_back(p.meaning);
  return legend;
}

std::vector<std::string> alias_names() {
  std::vector<std::string> names;
  for (const Named& n : fixed()) names.push_back(n.name);
  for (const Pattern& p : patterns()) names.push_back(p.meaning.substr(0, p.meaning.find(' ')));
  return names;
}

std::string alias_of(const std::string& kind,
                     const std::function<std::optional<double>(const std::string&)>& setting) {
  for (const Named& n : fixed()) {
    if (n.alias.kind != kind || n.alias.settings.empty()) continue;  // "fp32" is "none" itself
    bool all = true;
    for (const auto& [key, value] : n.alias.settings) all = all && setting(key) == value;
    if (all) return n.name;
  }
  return "";
}

}  // namespace edgetrain::compress
