// See output_file.hpp.
#include "report/output_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace edgetrain::report {

std::error_code write_file(const std::filesystem::path& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return last_error();
  std::error_code ec;
  for (size_t done = 0; done < content.size() && !ec;) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n == 0) {
      ec = std::make_error_code(std::errc::no_space_on_device);  // nothing written and no reason given
    } else if (errno != EINTR) {
      ec = last_error();
    }
  }
  // A full disk may show only here: the data is on disk once fsync returns.
  if (!ec && ::fsync(fd) != 0) ec = last_error();
  if (::close(fd) != 0 && !ec) ec = last_error();
  return ec;
}

}  // namespace edgetrain::report
