// See csv_lines.hpp.
#include "util/csv_lines.hpp"

#include <algorithm>
#include <charconv>

namespace edgetrain::util {

std::string_view trim_field(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool parse_number(std::string_view field, double& out) {
  field = trim_field(field);
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);  // from_chars refuses a leading '+'
  if (field.empty()) return false;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), out);
  return ec == std::errc() && end == field.data() + field.size();
}

std::string quoted_line(std::string_view text) {
  return text.size() > 80 ? std::string(text.substr(0, 80)) + "..." : std::string(text);
}

std::vector<CsvLine> csv_lines(std::string_view content) {
  std::vector<CsvLine> lines;
  bool seen_content = false;
  int number = 0;
  while (!content.empty()) {
    const size_t end = content.find('\n');
    const std::string_view text = trim_field(content.substr(0, end));
    content.remove_prefix(end == std::string_view::npos ? content.size() : end + 1);
    ++number;
    if (text.empty() || text.front() == '#') continue;
    CsvLine line{number, text, {}};
    for (std::string_view rest = text;;) {
      const size_t comma = rest.find(',');
      line.fields.push_back(trim_field(rest.substr(0, comma)));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    const bool first = !seen_content;
    seen_content = true;
    double ignored = 0;
    const bool any_number = std::any_of(line.fields.begin(), line.fields.end(),
                                        [&](std::string_view f) { return parse_number(f, ignored); });
    if (first && !any_number) continue;  // the header
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace edgetrain::util
