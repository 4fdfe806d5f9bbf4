// See csv_stream.hpp.
#include "report/csv_stream.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "report/output_file.hpp"

namespace edgetrain::report {

CsvStream::~CsvStream() {
  if (file_) std::fclose(file_);  // not closed: the run failed, its temporary folder goes
}

void CsvStream::open(const std::filesystem::path& path, std::string shown, std::string note,
                     std::vector<std::string> header) {
  shown_ = std::move(shown);
  note_ = std::move(note);
  pending_ = CsvTable(std::move(header));
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) {
    error_ = std::strerror(errno);
    return;
  }
  if (std::fputs(pending_.str().c_str(), file_) < 0) error_ = std::strerror(errno);
}

CsvTable::Row& CsvStream::row() {
  if (pending_.rows() >= kFlushRows) flush_rows();
  return pending_.row();
}

void CsvStream::flush_rows() {
  if (file_ && error_.empty()) {
    const std::string text = pending_.body();
    if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) error_ = std::strerror(errno);
  }
  pending_.clear_rows();
}

void CsvStream::close() {
  if (shown_.empty()) return;  // never opened
  flush_rows();
  if (file_) {
    if (error_.empty() && (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0)) error_ = std::strerror(errno);
    if (std::fclose(file_) != 0 && error_.empty()) error_ = std::strerror(errno);
    file_ = nullptr;
  }
  if (!error_.empty()) throw OutputError(shown_ + ": cannot write: " + error_ + " (" + note_ + ")");
}

}  // namespace edgetrain::report
