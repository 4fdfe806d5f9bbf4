// See output_file.hpp.
#include "report/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "util/printable.hpp"

namespace edgetrain::report {
namespace {

namespace fs = std::filesystem;

std::error_code write_all(int fd, const std::string& content) {
  for (size_t done = 0; done < content.size();) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n == 0) {
      return std::make_error_code(std::errc::no_space_on_device);  // nothing written and no reason given
    } else if (errno != EINTR) {
      return last_error();
    }
  }
  return {};
}

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

}  // namespace

std::error_code write_file(const fs::path& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return last_error();
  std::error_code ec = write_all(fd, content);
  // A full disk may show only here: the data is on disk once fsync returns.
  if (!ec && ::fsync(fd) != 0) ec = last_error();
  if (::close(fd) != 0 && !ec) ec = last_error();
  return ec;
}

fs::path follow_symlinks(const fs::path& path, const std::string& shown) {
  fs::path at = fs::absolute(path);
  for (int hops = 0; hops <= 40; ++hops) {
    std::error_code ec;
    // The folders above resolved first, so that a relative link is read from where it is.
    const fs::path parent = fs::weakly_canonical(at.parent_path(), ec);
    if (!ec && at.has_filename()) at = parent / at.filename();
    if (!fs::is_symlink(fs::symlink_status(at, ec))) return at;
    const fs::path target = fs::read_symlink(at, ec);
    if (ec) return at;
    at = target.is_absolute() ? target : at.parent_path() / target;
  }
  throw OutputError(util::printable(shown) + ": too many levels of symbolic links");
}

// /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: an open file of this process (a pipe, a
// terminal, or the file a shell redirected to), written through, never replaced by a rename.
bool names_open_file(const fs::path& path) {
  const std::string p = fs::absolute(path).lexically_normal().string();
  for (const std::string prefix : {"/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/"}) {
    if (p.rfind(prefix, 0) == 0) return true;
  }
  return p.rfind("/proc/", 0) == 0 && p.find("/fd/") != std::string::npos;
}

OutputTarget check_output(const fs::path& path, const std::string& shown, const std::vector<fs::path>& inputs) {
  const std::string name = util::printable(shown);
  // stat() follows every link the kernel does, /proc/self/fd/N's included (a pipe, a terminal).
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) throw OutputError(name + ": cannot write: " + last_error().message());
    return {follow_symlinks(path, shown), false};  // nothing there, or a symlink to where a new file goes
  }
  for (const fs::path& input : inputs) {
    struct stat in {};
    if (::stat(input.c_str(), &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino) {
      throw OutputError(name + ": is the input " + util::printable(input.string()) +
                        "; writing it would destroy what is read: choose another output file");
    }
  }
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || (S_ISREG(st.st_mode) && names_open_file(path))) {
    return {path, true};
  }
  if (!S_ISREG(st.st_mode)) {
    throw OutputError(name + ": is " + kind_of(st.st_mode) +
                      "; edgetrain writes a regular file there, or through a character device or FIFO");
  }
  std::error_code ec;
  fs::path target = fs::canonical(path, ec);  // the file a symlink names is replaced, the link stays
  if (ec) throw OutputError(name + ": cannot write: " + ec.message());
  return {target, false};
}

void write_output(const fs::path& path, const std::string& content, const std::string& shown,
                  const std::vector<fs::path>& inputs) {
  const std::string name = util::printable(shown);
  const OutputTarget target = check_output(path, shown, inputs);
  if (target.write_through) {
    // A device node or a pipe is written as it is, never replaced by a regular file.
    const int fd = ::open(target.path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) throw OutputError(name + ": cannot write: " + last_error().message());
    std::error_code ec = write_all(fd, content);
    if (::close(fd) != 0 && !ec) ec = last_error();
    if (ec) throw OutputError(name + ": cannot write: " + ec.message());
    return;
  }
  const fs::path temp = target.path.string() + ".tmp-" + std::to_string(::getpid());
  std::error_code ec = write_file(temp, content), ignored;
  if (!ec) fs::rename(temp, target.path, ec);
  if (ec) {
    fs::remove(temp, ignored);
    throw OutputError(name + ": cannot write: " + ec.message());
  }
}

}  // namespace edgetrain::report
