// See units.hpp. The suffix tables mirror SimGrid 3.32's: decimal prefixes k M G T P E Z Y,
// binary prefixes Ki Mi ... Yi for bytes and bits (so "KBps" is not a unit, "kBps" and "KiBps" are).
#include "platform/units.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

namespace edgetrain::platform {
namespace {

using Table = std::map<std::string, double, std::less<>>;

void add_prefixed(Table& t, const std::string& unit, double value, bool binary, bool abbreviated) {
  static const char* const kDecimal[] = {"k", "M", "G", "T", "P", "E", "Z", "Y"};
  static const char* const kBinary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"};
  static const char* const kDecimalWords[] = {"kilo", "mega", "giga", "tera", "peta", "exa", "zeta", "yotta"};
  t.emplace(unit, value);
  const double step = binary ? 1024.0 : 1000.0;
  for (int i = 0; i < 8; ++i) {
    value *= step;
    t.emplace(std::string(abbreviated ? (binary ? kBinary[i] : kDecimal[i]) : kDecimalWords[i]) + unit, value);
  }
}

const Table& table(Quantity kind) {
  static const Table speed = [] {
    Table t;
    add_prefixed(t, "f", 1.0, false, true);
    add_prefixed(t, "flops", 1.0, false, false);
    return t;
  }();
  static const Table bandwidth = [] {
    Table t;
    for (bool binary : {false, true}) {
      add_prefixed(t, "bps", 0.125, binary, true);
      add_prefixed(t, "Bps", 1.0, binary, true);
    }
    return t;
  }();
  static const Table time = {{"w", 7 * 24 * 3600.0}, {"d", 24 * 3600.0}, {"h", 3600.0}, {"m", 60.0},  {"s", 1.0},
                             {"ms", 1e-3},           {"us", 1e-6},       {"ns", 1e-9},  {"ps", 1e-12}};
  switch (kind) {
    case Quantity::Speed: return speed;
    case Quantity::Bandwidth: return bandwidth;
    case Quantity::Time: return time;
  }
  return time;
}

const char* base_unit(Quantity kind) {
  switch (kind) {
    case Quantity::Speed: return "f";
    case Quantity::Bandwidth: return "Bps";
    case Quantity::Time: return "s";
  }
  return "";
}

}  // namespace

std::optional<double> parse_quantity(std::string_view text, Quantity kind) {
  // A plain decimal number: strtod would also take leading spaces, "inf", "nan" and hex.
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  if (i >= text.size() || !(std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) return std::nullopt;
  if (text.substr(i, 2) == "0x" || text.substr(i, 2) == "0X") return std::nullopt;
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end == copy.c_str() || !std::isfinite(value)) return std::nullopt;
  std::string_view unit(end);
  if (unit.empty()) unit = base_unit(kind);
  const auto& units = table(kind);
  const auto it = units.find(unit);
  if (it == units.end()) return std::nullopt;
  const double scaled = value * it->second;
  if (!std::isfinite(scaled)) return std::nullopt;
  return scaled;
}

std::vector<std::string> split_list(std::string_view text, Quantity kind) {
  const std::string_view separators = kind == Quantity::Bandwidth ? ",;" : ",";
  std::vector<std::string> items;
  size_t start = 0;
  while (true) {
    const size_t end = text.find_first_of(separators, start);
    std::string_view item = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (kind == Quantity::Speed) {
      while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) item.remove_prefix(1);
      while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.remove_suffix(1);
    }
    items.emplace_back(item);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return items;
}

std::string expected_form(Quantity kind) {
  switch (kind) {
    case Quantity::Speed: return "a speed such as \"2Gf\" or \"500Mf\" (units f, kf, Mf, Gf, Tf, ...)";
    case Quantity::Bandwidth:
      return "a bandwidth such as \"10Mbps\" or \"1.25MBps\" (units bps, kbps, Mbps, Gbps, Bps, kBps, MBps, GBps, "
             "KiBps, MiBps, ...)";
    case Quantity::Time: return "a time such as \"10ms\" or \"0\" (units s, ms, us, ns, ps, m, h, d, w)";
  }
  return "";
}

}  // namespace edgetrain::platform
