// One run at a time per results folder: an exclusive flock on a lock file beside the folder
// (`.NAME.lock` in its parent), holding the owner's pid so that a refused run can name it. The
// kernel drops the lock when its holder dies, however it dies; the holder removes the file when
// it lets go.
#pragma once

#include <filesystem>
#include <string>

namespace edgetrain::report {

class FolderLock {
 public:
  // Takes the lock of `folder` (an absolute path), or throws OutputError naming `shown` (the folder
  // as the user wrote it) and the pid of the run that holds it.
  FolderLock(const std::filesystem::path& folder, const std::string& shown);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  static std::filesystem::path lock_path(const std::filesystem::path& folder);

 private:
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace edgetrain::report
