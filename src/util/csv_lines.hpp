// The lines of a small CSV file of numbers, as edgetrain's trace files are written (stream and link
// traces, device traces): blank lines and '#' comments skipped, fields split at commas and trimmed,
// and a first line holding no number taken for a header and skipped. Each reader checks its own
// columns.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace edgetrain::util {

struct CsvLine {
  int number = 0;                        // 1-based, for messages
  std::string_view text;                 // the line, trimmed
  std::vector<std::string_view> fields;  // trimmed
};

std::vector<CsvLine> csv_lines(std::string_view content);

// Spaces, tabs and carriage returns off both ends.
std::string_view trim_field(std::string_view s);
// The whole field as a number (a leading '+' allowed; "inf" and "nan" parse: callers bound them).
bool parse_number(std::string_view field, double& out);
// The line as quoted in a message: at most 80 bytes (a binary file's "line" can be megabytes long).
std::string quoted_line(std::string_view text);

}  // namespace edgetrain::util
