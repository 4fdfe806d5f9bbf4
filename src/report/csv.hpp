// A small CSV table with deterministic number formatting (shortest round-trip form, the same
// bytes on every run), serialised in one piece for atomic writing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace edgetrain::report {

// Shortest decimal form that reads back to the same double ("0.1", "1e-07"); whole numbers
// below 1e15 as integers ("3000000000").
std::string format_number(double value);

// A cell as written: quoted if it holds a comma, quote or newline.
std::string csv_cell(const std::string& text);

class CsvTable {
 public:
  explicit CsvTable(std::vector<std::string> header) : header_(std::move(header)) {}
  class Row {
   public:
    Row& add(const std::string& text);  // quoted if it holds a comma, quote or newline
    Row& add(double value) { return add(format_number(value)); }
    Row& add(int64_t value) { return add(std::to_string(value)); }
    Row& add(int value) { return add(static_cast<int64_t>(value)); }

   private:
    friend class CsvTable;
    std::vector<std::string> cells_;
  };
  Row& row();               // a new row, filled with add()
  std::string str() const;  // throws std::logic_error if a row's width differs from the header
  std::string body() const;  // the rows without the header (a streamed file's next part)
  void clear_rows() { rows_.clear(); }
  size_t rows() const { return rows_.size(); }

 private:
  std::vector<std::string> header_;
  std::vector<Row> rows_;
};

}  // namespace edgetrain::report
