// See csv.hpp.
#include "report/csv.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "util/format.hpp"

namespace edgetrain::report {

std::string format_number(double value) {
  // Whole numbers (byte counts, FLOP/s) print as integers, never as "3e+09".
  if (std::isfinite(value) && value == std::trunc(value) && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<int64_t>(value));
  }
  return util::format_number(value);
}

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

CsvTable::Row& CsvTable::Row::add(const std::string& text) {
  cells_.push_back(csv_cell(text));
  return *this;
}

CsvTable::Row& CsvTable::row() { return rows_.emplace_back(); }

namespace {

std::string line(const std::vector<std::string>& cells) {
  std::string s;
  for (size_t i = 0; i < cells.size(); ++i) s += (i ? "," : "") + cells[i];
  return s + "\n";
}

}  // namespace

std::string CsvTable::str() const { return line(header_) + body(); }

std::string CsvTable::body() const {
  std::string out;
  for (const Row& r : rows_) {
    if (r.cells_.size() != header_.size()) {
      throw std::logic_error("CSV row has " + std::to_string(r.cells_.size()) + " cells for " +
                             std::to_string(header_.size()) + " columns");
    }
    out += line(r.cells_);
  }
  return out;
}

}  // namespace edgetrain::report
