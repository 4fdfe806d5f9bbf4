// A CSV file written row by row while the run goes (buffers.csv, buffers_fleet.csv), instead of
// a table held in memory until the end: those files grow with simulated time, not with work done
// (one row per report.buffer_every_s). Rows are formatted by CsvTable, so the bytes are the
// same as a table written whole. A write error is kept and reported by close(), never thrown
// from inside a simulation actor.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "report/csv.hpp"

namespace edgetrain::report {

class CsvStream {
 public:
  CsvStream() = default;  // not open: rows are formatted and dropped (a validation simulates nothing)
  ~CsvStream();
  CsvStream(const CsvStream&) = delete;
  CsvStream& operator=(const CsvStream&) = delete;

  // Creates `path` (in the run's temporary folder) and writes the header. A failure is reported as
  // "<shown>: cannot write: <reason> (<note>)", as ResultsDir reports the files it writes.
  void open(const std::filesystem::path& path, std::string shown, std::string note, std::vector<std::string> header);
  // A new row, filled with add() as a CsvTable row; written out every kFlushRows rows.
  CsvTable::Row& row();
  // Writes what is left, flushes to disk and closes; throws OutputError naming the file.
  void close();

 private:
  static constexpr size_t kFlushRows = 4096;
  void flush_rows();
  std::string shown_, note_;
  std::FILE* file_ = nullptr;
  CsvTable pending_{{}};
  std::string error_;  // the first failure, reported by close()
};

}  // namespace edgetrain::report
