// See atomic_file.hpp.
#include "report/atomic_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <system_error>

namespace edgetrain::report {

void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw OutputError(path.parent_path().string() + ": cannot create folder: " + ec.message());
  const std::filesystem::path tmp = path.string() + ".tmp" + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f)
    throw OutputError(tmp.string() + ": cannot write: " + std::error_code(errno, std::generic_category()).message());
  const bool written = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  const bool flushed = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  const bool closed = std::fclose(f) == 0;
  if (!written || !flushed || !closed) {
    std::filesystem::remove(tmp, ec);
    throw OutputError(path.string() + ": write failed");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw OutputError(path.string() + ": cannot rename into place: " + ec.message());
}

}  // namespace edgetrain::report
