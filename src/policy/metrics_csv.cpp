// See policy.hpp.
#include <cstdio>

#include "policy/policy.hpp"

namespace edgetrain::policy {

std::string metrics_csv(const std::vector<MetricRow>& rows) {
  std::string out = "round,source,key,value\n";
  for (const MetricRow& row : rows) {
    std::string key = "\"";  // a metric's name is the policy's: quoted, its quotes doubled
    for (char c : row.key) key += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' || c == '\r' ? ' ' : c);
    char value[32];
    std::snprintf(value, sizeof value, "%.17g", row.value);
    out += std::to_string(row.round) + "," + row.source + "," + key + "\"," + value + "\n";
  }
  return out;
}

}  // namespace edgetrain::policy
