// See folder_lock.hpp.
#include "report/folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "report/output_file.hpp"

namespace edgetrain::report {
namespace {

// The pid written in a lock file by its holder ("" if it has not written it yet).
std::string holder_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid(buf, n > 0 ? static_cast<size_t>(n) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid;
}

bool same_file(int fd, const std::filesystem::path& path) {
  struct stat open_file {
  }, named{};
  return ::fstat(fd, &open_file) == 0 && ::stat(path.c_str(), &named) == 0 && open_file.st_dev == named.st_dev &&
         open_file.st_ino == named.st_ino;
}

}  // namespace

std::filesystem::path FolderLock::lock_path(const std::filesystem::path& folder) {
  return folder.parent_path() / ("." + folder.filename().string() + ".lock");
}

FolderLock::FolderLock(const std::filesystem::path& folder, const std::string& shown) : path_(lock_path(folder)) {
  // The holder removes the lock file when it lets go: a run that opened it just before then
  // locks a file no longer in place, and tries again on the current one.
  while (true) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0) throw OutputError(path_.string() + ": cannot create the lock file: " + last_error().message());
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string pid = holder_pid(fd_);
      ::close(fd_);
      fd_ = -1;
      if (err != EWOULDBLOCK) {
        throw OutputError(path_.string() + ": cannot lock: " + std::error_code(err, std::generic_category()).message());
      }
      throw OutputError("--out " + shown + ": another edgetrain run (pid " + (pid.empty() ? "unknown" : pid) +
                        ") is writing this folder; wait for it to end or choose another --out");
    }
    if (same_file(fd_, path_)) break;
    ::close(fd_);
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const std::string why = last_error().message();
    ::unlink(path_.c_str());
    ::close(fd_);
    throw OutputError(path_.string() + ": cannot write the lock file: " + why);
  }
}

FolderLock::~FolderLock() {
  // Removed while still held, so that no other run can take a lock on it in between.
  ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace edgetrain::report
