// Parsing of human quantities (see units.hpp). Each unit family is a small table of suffixes
// and factors to the base unit; suffixes are case-sensitive because "Mbps" (megabits) and
// "MBps" (megabytes) differ by a factor of eight.
#include "input/units.hpp"

#include <charconv>
#include <cmath>
#include <optional>
#include <vector>

#include "input/error.hpp"
#include "input/text.hpp"

namespace edgetrain::input {
namespace {

struct Suffix {
  std::string_view text;
  double factor;
  bool listed;  // shown in messages; unlisted ones are accepted aliases (e.g. "KB" for "kB")
};

struct Family {
  std::string_view article;  // "a" or "an", before the noun
  std::string_view noun;
  std::string_view base;  // what a bare number means, e.g. "number of seconds"
  std::string_view symbol;
  std::string_view example;
  std::string_view how;  // "a unit" or "a suffix"
  std::vector<Suffix> suffixes;
};

const Family& family(Unit unit) {
  static const Family kSeconds{
      "a",
      "duration",
      "number of seconds",
      "s",
      "500ms",
      "a unit",
      {{"us", 1e-6, true}, {"ms", 1e-3, true}, {"s", 1, true}, {"min", 60, true}, {"h", 3600, true}}};
  static const Family kBytes{"a",
                             "size",
                             "number of bytes",
                             "B",
                             "4MiB",
                             "a unit",
                             {{"B", 1, true},
                              {"kB", 1e3, true},
                              {"KB", 1e3, false},
                              {"MB", 1e6, true},
                              {"GB", 1e9, true},
                              {"TB", 1e12, true},
                              {"KiB", 1024.0, true},
                              {"MiB", 1024.0 * 1024, true},
                              {"GiB", 1024.0 * 1024 * 1024, true},
                              {"TiB", 1024.0 * 1024 * 1024 * 1024, true}}};
  static const Family kFlops{"an",
                             "amount of computation",
                             "number of flops",
                             "f",
                             "2Gf",
                             "a unit",
                             {{"f", 1, true},
                              {"kf", 1e3, true},
                              {"Mf", 1e6, true},
                              {"Gf", 1e9, true},
                              {"Tf", 1e12, true},
                              {"Pf", 1e15, true}}};
  // Bits per second is the base; byte rates are multiplied by eight.
  static const Family kBandwidth{"a",
                                 "bandwidth",
                                 "number of bits per second",
                                 "bit/s",
                                 "10Mbps",
                                 "a unit",
                                 {{"bps", 1, true},
                                  {"kbps", 1e3, true},
                                  {"Kbps", 1e3, false},
                                  {"Mbps", 1e6, true},
                                  {"Gbps", 1e9, true},
                                  {"Tbps", 1e12, true},
                                  {"Bps", 8, true},
                                  {"kBps", 8e3, true},
                                  {"KBps", 8e3, false},
                                  {"MBps", 8e6, true},
                                  {"GBps", 8e9, true},
                                  {"TBps", 8e12, true},
                                  {"KiBps", 8 * 1024.0, true},
                                  {"MiBps", 8 * 1024.0 * 1024, true},
                                  {"GiBps", 8 * 1024.0 * 1024 * 1024, true}}};
  static const Family kCount{
      "a", "count", "number", "", "60k", "a suffix", {{"k", 1e3, true}, {"M", 1e6, true}, {"G", 1e9, true}}};
  switch (unit) {
    case Unit::Seconds: return kSeconds;
    case Unit::Bytes: return kBytes;
    case Unit::Flops: return kFlops;
    case Unit::BitsPerSecond: return kBandwidth;
    case Unit::Count: return kCount;
  }
  return kCount;  // unreachable; keeps -Wreturn-type quiet
}

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// "<number>[ ]<suffix>", or a bare number meaning the base unit.
std::optional<double> parse_text(std::string_view s, const Family& f) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  // std::from_chars refuses a leading '+', which people do write.
  if (s.front() == '+') {
    s.remove_prefix(1);
    if (s.empty() || s.front() == '-' || s.front() == '+') return std::nullopt;
  }
  double number = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, number);
  if (ec != std::errc() || !std::isfinite(number)) return std::nullopt;
  const std::string_view rest = trim(std::string_view(ptr, static_cast<size_t>(end - ptr)));
  if (rest.empty()) return number;
  for (const auto& suffix : f.suffixes) {
    if (rest == suffix.text) {
      const double value = number * suffix.factor;
      if (!std::isfinite(value)) return std::nullopt;
      return value;
    }
  }
  return std::nullopt;
}

}  // namespace

double parse_quantity(const nlohmann::json& value, Unit unit, const std::string& json_path) {
  const Family& f = family(unit);
  if (value.is_number()) return value.get<double>();
  if (!value.is_string()) {
    throw Error(json_path + ": expected " + std::string(f.article) + " " + std::string(f.noun) + " (" +
                        std::string(f.base) + " or string like \"" + std::string(f.example) + "\"), got " +
                        text::show(value));
  }
  const auto& s = value.get_ref<const std::string&>();
  if (auto parsed = parse_text(s, f)) return *parsed;
  throw Error(json_path + ": cannot read " + text::show(value) + " as " + std::string(f.article) + " " +
                      std::string(f.noun) + " (use a " + std::string(f.base) + " or " + std::string(f.how) + ": " +
                      unit_suffixes(unit) + ")");
}

std::string_view unit_noun(Unit unit) { return family(unit).noun; }
std::string_view unit_symbol(Unit unit) { return family(unit).symbol; }
std::string_view unit_example(Unit unit) { return family(unit).example; }

std::string unit_suffixes(Unit unit) {
  std::vector<std::string> listed;
  for (const auto& s : family(unit).suffixes) {
    if (s.listed) listed.emplace_back(s.text);
  }
  return text::join(listed, ", ");
}

}  // namespace edgetrain::input
