// The one number formatting of messages and files: the shortest text that reads back as the
// same double ("2", "0.3", "1e-05"), so messages quote values as the user wrote them and
// output files are byte-identical across runs.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

namespace edgetrain::util {

inline std::string format_number(double value) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  if (value == 0) return "0";  // also folds -0
  char buf[64];
  const auto result = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, result.ptr);
}

// A relative error as people read it: 0.123 -> "+12.3%" (with `decimals` 1), -0.4 -> "-40%" (0).
inline std::string signed_percent(double fraction, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.*f%%", decimals, 100 * fraction);
  return buf;
}

}  // namespace edgetrain::util
